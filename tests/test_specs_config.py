import pytest

from benchsmith.config import RunConfig, RunPaths, load_file_config
from benchsmith.errors import ConfigError, ModelSpecError
from benchsmith.llm.roles import resolve_role_models
from benchsmith.llm.specs import READER_MODEL_NAME, ROLES, parse_model_spec


def test_local_spec():
    spec = parse_model_spec("local", env={})
    assert spec.provider == "local"
    assert spec.default_structured_method == "function_calling"
    assert spec.endpoint_key == "local"


def test_reader_spec_names_the_embedded_reader():
    spec = parse_model_spec(" local:reader ", env={})
    assert (spec.provider, spec.model, spec.text) == ("local", READER_MODEL_NAME, "local:reader")
    assert spec.identity == f"local:{READER_MODEL_NAME}" != parse_model_spec("local").identity
    # Its many small questions about one text keep the text a cached prefix (no function
    # definition put before it); SmolLM2 keeps function calling.
    assert spec.default_structured_method == "json_grammar"
    assert parse_model_spec("local").default_structured_method == "function_calling"
    assert spec.endpoint_key == "local"  # one limit for both embedded servers: they share the cores
    with pytest.raises(ModelSpecError, match=r"unknown embedded model 'local:big'.*local:reader"):
        parse_model_spec("local:big", env={})
    # A compatible server's model may still start with "local:".
    assert parse_model_spec("local:x@http://h:1/v1", env={}).provider == "compatible"


def test_openai_spec_uses_json_schema_and_base_url_from_env():
    spec = parse_model_spec("openai:gpt-4o-mini", env={})
    assert (spec.provider, spec.model, spec.base_url) == ("openai", "gpt-4o-mini", None)
    assert spec.default_structured_method == "json_schema"
    assert spec.api_key_env == "OPENAI_API_KEY"
    proxied = parse_model_spec("openai:gpt-4o-mini", env={"OPENAI_BASE_URL": "http://proxy:1/v1/"})
    assert proxied.base_url == "http://proxy:1/v1"
    assert proxied.default_structured_method == "function_calling"


def test_compatible_spec_keeps_colons_in_model_names():
    spec = parse_model_spec("qwen2.5:7b@http://gpu-box:8000/v1", env={})
    assert (spec.provider, spec.model, spec.base_url) == (
        "compatible",
        "qwen2.5:7b",
        "http://gpu-box:8000/v1",
    )
    assert spec.identity == "qwen2.5:7b@http://gpu-box:8000/v1"


@pytest.mark.parametrize(
    "text,url",
    [
        ("ollama:llama3.1:8b", "http://localhost:11434/v1"),
        ("vllm:meta/llama", "http://localhost:8000/v1"),
        ("lmstudio:phi", "http://localhost:1234/v1"),
        ("llamacpp:any", "http://localhost:8080/v1"),
    ],
)
def test_server_shortcuts(text, url):
    assert parse_model_spec(text, env={}).base_url == url


@pytest.mark.parametrize(
    "text", ["", "gpt-4o", "opneai:gpt-4o", "openai:", "m@ftp://x", "m@http://"]
)
def test_bad_specs_name_the_input_and_the_accepted_forms(text):
    with pytest.raises(ModelSpecError) as info:
        parse_model_spec(text, env={})
    message = str(info.value)
    assert (text and repr(text) in message) or "empty" in message
    assert "local" in message or "http://host:8000/v1" in message


def test_role_resolution_order(tmp_path):
    cfg = tmp_path / "benchsmith.toml"
    cfg.write_text('[models]\ndefault = "openai:gpt-4o-mini"\njudge = "ollama:qwen"\n')
    file_config = load_file_config(cfg, env={})
    env = {"BENCHSMITH_MODEL": "vllm:envmodel", "BENCHSMITH_MODEL_SOLVER": "vllm:solver"}

    # Nothing explicit: the file wins over the environment, a role key over default.
    r = resolve_role_models(file_config=file_config, env=env)
    assert r["judge"].spec.text == "ollama:qwen"
    assert r["design"].spec.text == "openai:gpt-4o-mini"
    assert r["solver"].spec.text == "openai:gpt-4o-mini"
    assert "benchsmith.toml [models] default" in r["design"].source

    # Explicit arguments win over everything; a per-role argument over --model.
    r = resolve_role_models(
        model="local", role_models={"verification": "lmstudio:x"}, file_config=file_config, env=env
    )
    assert r["judge"].spec.text == "local"
    assert r["verification"].spec.text == "lmstudio:x"

    # No file: the environment, role variable first; then the default.
    r = resolve_role_models(env=env)
    assert r["solver"].spec.text == "vllm:solver"
    assert r["design"].spec.text == "vllm:envmodel"
    r = resolve_role_models(env={})
    # Every role defaults to the embedded SmolLM2, the reader role to the embedded reader.
    assert {role: m.spec.text for role, m in r.items() if m.spec.text != "local"} == {
        "reader": "local:reader"
    }
    assert set(r) == set(ROLES)


def test_bad_spec_from_file_names_its_source(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[models]\ndefault = "nonsense"\n')
    with pytest.raises(ModelSpecError, match=r"c.toml \[models\] default"):
        resolve_role_models(file_config=load_file_config(cfg, env={}), env={})


@pytest.mark.parametrize(
    "text,match",
    [
        ("[models\n", "not valid TOML"),
        ("[modles]\n", "unknown section"),
        ('[models]\nwriter = "local"\n', "keys must be 'default' or a role"),
        ("[llm]\nmax_attempts = 0\n", "max_attempts"),
        ("[llm]\nmax_atempts = 2\n", "max_atempts"),
        ('[prices."m"]\ninput = -1\noutput = 1\n', "input"),
    ],
)
def test_config_file_errors_name_the_file_and_key(tmp_path, text, match):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=match) as info:
        load_file_config(cfg, env={})
    assert "bad.toml" in str(info.value)


def test_missing_explicit_config_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_file_config(tmp_path / "nope.toml", env={})
    with pytest.raises(ConfigError, match="BENCHSMITH_CONFIG"):
        load_file_config(None, env={"BENCHSMITH_CONFIG": str(tmp_path / "nope.toml")})


def test_run_config_checks_values():
    with pytest.raises(ConfigError, match="budget_usd"):
        RunConfig(budget_usd=-1)
    with pytest.raises(ConfigError, match="role_models.writer"):
        RunConfig(role_models={"writer": "local"})
    with pytest.raises(ConfigError, match="structured_method.*'json_schema'"):
        RunConfig(structured_method="xml")
    with pytest.raises(ConfigError, match="concurrency.*less than or equal to 64"):
        RunConfig(concurrency=65)
    with pytest.raises(ConfigError, match="judge"):
        RunConfig(judge="sometimes")
    with pytest.raises(ConfigError, match="modalities.0"):
        RunConfig(modalities=["smell"])
    with pytest.raises(ConfigError, match="out_dir"):
        RunConfig(out_dir="x")  # a path belongs to RunConfig.paths, not the settings
    assert RunConfig.field_descriptions()["replay"]


def test_run_config_bounds_are_the_fields_own():
    assert RunConfig.bounds("concurrency") == (1, 64)
    assert RunConfig.bounds("max_subtasks") == (1, 12)
    assert RunConfig.bounds("max_slots_factor") == (1.0, 50.0)
    assert RunConfig.bounds("seed") == (None, None)


def test_run_config_knows_what_was_given():
    """No value stands for "unset": a seed of 0 given on purpose is a given seed."""
    assert "seed" not in RunConfig().model_fields_set
    assert "seed" in RunConfig(seed=0).model_fields_set
    assert "seed" in RunConfig().model_copy(update={"seed": 0}).model_fields_set


def test_run_paths_are_apart_from_the_settings():
    config = RunConfig(seed=3, paths=RunPaths(out_dir="out/a"))
    moved = config.with_paths(run_dir="out/a/.run")
    assert (moved.paths.out_dir, moved.paths.run_dir, moved.seed) == ("out/a", "out/a/.run", 3)
    assert config.paths.run_dir is None  # frozen: the original is untouched
    with pytest.raises(Exception, match="frozen"):
        config.seed = 4  # type: ignore[misc]
    assert RunConfig(seed=1).key() != RunConfig(seed=2).key()


def test_the_embedded_model_warning_says_what_the_small_model_does_not_do(tmp_path):
    from types import SimpleNamespace

    from benchsmith.agents.preflight import preflight
    from benchsmith.llm.registry import register_runtime

    config = RunConfig(model="local", paths=RunPaths(run_dir=str(tmp_path)))
    try:
        update = preflight({"intent": "capitals", "size": 3}, SimpleNamespace(context=config))
    finally:
        register_runtime(config, None)
    (warning,) = [w for w in update["warnings"] if "embedded 135M model" in w]
    assert "read by rules alone" in warning and "not asked to judge" in warning
    assert "--model openai:MODEL" in warning
