"""The command line: help, one-line errors, models, doctor."""

import json
import os
import subprocess
import sys

import pytest

from benchsmith.cli import main
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply


def run_cli(*args, env=None, cwd=None):
    """Run the real entry point in a subprocess."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHSMITH_", "OPENAI_"))}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "benchsmith.cli", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.parametrize("args", [["--help"], ["models", "--help"], ["doctor", "--help"]])
def test_help(args, capsys):
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Usage: benchsmith" in out


@pytest.mark.parametrize(
    "args,code,text",
    [
        (["models", "--model", "gpt4"], 2, "unknown model spec 'gpt4'"),
        (["models", "--bogus"], 2, "No such option '--bogus'"),
        (["models", "--role-model", "writer=local"], 2, "unknown role 'writer'"),
        (["models", "--role-model", "judge"], 2, "write it as ROLE=SPEC"),
        (["--config", "/nonexistent/b.toml", "models"], 2, "does not exist"),
        (["frobnicate"], 2, "No such command 'frobnicate'"),
    ],
)
def test_user_errors_are_one_line_without_traceback(args, code, text, tmp_path):
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == code
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("benchsmith: error: ")
    assert text in lines[0]
    assert "Traceback" not in result.stderr


def test_models_shows_each_role_with_its_source(tmp_path):
    (tmp_path / "benchsmith.toml").write_text('[models]\njudge = "openai:gpt-4o"\n')
    result = run_cli(
        "models",
        "--json",
        "--role-model",
        "solver=ollama:qwen2.5:7b",
        env={"BENCHSMITH_MODEL": "vllm:big"},
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    rows = {r["role"]: r for r in json.loads(result.stdout)}
    assert rows["judge"]["spec"] == "openai:gpt-4o"
    assert rows["judge"]["structured_method"] == "json_schema"
    assert rows["judge"]["price_usd_per_mtok"] == {"input": 2.5, "output": 10.0}
    assert "benchsmith.toml [models] judge" in rows["judge"]["source"]
    assert rows["solver"]["spec"] == "ollama:qwen2.5:7b"
    assert rows["solver"]["source"] == "argument (solver)"
    assert rows["design"]["spec"] == "vllm:big"
    assert rows["design"]["source"] == "BENCHSMITH_MODEL"
    assert rows["design"]["price_usd_per_mtok"] is None


def test_dotenv_is_read_but_does_not_override_the_environment(tmp_path):
    (tmp_path / ".env").write_text("BENCHSMITH_MODEL=ollama:fromdotenv\nBENCHSMITH_MODEL_JUDGE=\n")
    result = run_cli("models", "--json", cwd=tmp_path)
    assert {r["spec"] for r in json.loads(result.stdout)} == {"ollama:fromdotenv"}
    result = run_cli("models", "--json", cwd=tmp_path, env={"BENCHSMITH_MODEL": "vllm:env"})
    assert {r["spec"] for r in json.loads(result.stdout)} == {"vllm:env"}


def test_doctor_reports_tools_and_endpoints(tmp_path):
    with FakeOpenAIServer() as up:
        with FakeOpenAIServer() as gone:
            dead = gone.base_url
        result = run_cli(
            "doctor",
            "--json",
            "--role-model",
            f"judge=m@{up.base_url}",
            "--role-model",
            f"solver=m@{dead}",
            cwd=tmp_path,
        )
    report = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    for program in ("espeak-ng", "ffmpeg", "ffprobe"):
        assert report[program]["required"] is True
    expected = (
        0 if all(report[p]["status"] == "ok" for p in ("espeak-ng", "ffmpeg", "ffprobe")) else 1
    )
    assert result.returncode == expected
    assert report[f"endpoint m@{up.base_url}"]["status"] == "ok"
    assert report[f"endpoint m@{dead}"]["status"] == "unreachable"
    assert report["network"]["status"] in ("ok", "info")


def test_doctor_probe_against_an_endpoint(tmp_path):
    with FakeOpenAIServer() as server:
        server.script(Reply.tool_call({"capital": "Paris", "continent": "Europe"}))
        result = run_cli(
            "doctor", "--probe", "--json", "--model", f"m@{server.base_url}", cwd=tmp_path
        )
    probe = json.loads(result.stdout)["probe"]
    assert probe["answer"] == {"capital": "Paris", "continent": "Europe"}
    assert probe["startup_seconds"] is None


def test_doctor_probe_failure_is_reported_not_raised(tmp_path):
    with FakeOpenAIServer() as server:
        server.script(Reply.status(401))
        result = run_cli("doctor", "--probe", "--model", f"m@{server.base_url}", cwd=tmp_path)
    assert result.returncode == 1
    assert "rejected the API key (401)" in result.stdout
    assert result.stderr.strip().startswith("benchsmith: error: doctor: not ready")
    assert "Traceback" not in result.stderr


def test_console_script_is_installed():
    exe = os.path.join(os.path.dirname(sys.executable), "benchsmith")
    result = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "version" in result.stdout


def test_tools_list_shows_every_tool_with_parameters():
    result = run_cli("tools", "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert {"tts_speak", "audio_add_noise", "image_blur", "web_search", "convert_table"} <= set(
        rows
    )
    assert "snr_db" in rows["audio_add_noise"]["parameters"]["properties"]
    text = run_cli("tools", "list", "--category", "speech").stdout
    assert "tts_speak  [speech; no input files]" in text and "image_blur" not in text


def test_tools_run_prints_provenance_and_refuses_bad_input(tmp_path):
    out = tmp_path / "media"
    ok = run_cli(
        "tools",
        "run",
        "tts_speak",
        "--param",
        "text=Hello there",
        "--param",
        "voice=en",
        "--param",
        "rate=200",
        "--out",
        str(out),
        "--seed",
        "3",
    )
    assert ok.returncode == 0, ok.stderr
    provenance = json.loads(ok.stdout)["provenance"]
    assert provenance["params"]["rate"] == 200
    assert provenance["measured"]["language"].startswith("en")
    assert (out / provenance["outputs"][0]["path"]).is_file()

    (tmp_path / "random.mp3").write_bytes(os.urandom(4096))
    bad = run_cli(
        "tools",
        "run",
        "audio_gain",
        "--param",
        "gain_db=3",
        "--input",
        str(tmp_path / "random.mp3"),
        "--out",
        str(out),
    )
    assert bad.returncode == 2  # an input error (see benchsmith --help)
    (line,) = bad.stderr.strip().splitlines()
    assert line.startswith("benchsmith: error: ") and "random.mp3" in line

    escape = run_cli(
        "tools",
        "run",
        "tts_speak",
        "--param",
        "text=hi",
        "--param",
        "output_name=../../evil.wav",
        "--out",
        str(out),
    )
    assert escape.returncode == 2 and "contains '..'" in escape.stderr
    assert not (tmp_path / "evil.wav").exists()


def test_build_usage_errors_are_one_line(tmp_path, capsys):
    from benchsmith.cli import main

    assert main(["build"]) == 2
    assert "give an INTENT, or --spec FILE" in capsys.readouterr().err
    assert main(["build", "x", "--replay", "--out", str(tmp_path / "o")]) == 2
    assert "--replay replays the records of a build" in capsys.readouterr().err
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("keep")
    code = main(["build", "capitals", "--out", str(taken), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1  # a usage error (see benchsmith --help)
    assert "is not empty; pass --resume" in err
    assert (taken / "mine.txt").read_text() == "keep"


def test_build_help_explains_the_options():
    from click.testing import CliRunner

    from benchsmith.cli import cli

    result = CliRunner().invoke(cli, ["build", "--help"])
    assert result.exit_code == 0
    for flag in (
        "--size",
        "--out",
        "--spec",
        "--seed",
        "--resume",
        "--replay",
        "--judge",
        "--concurrency",
        "--budget-usd",
        "--dataset",
        "--reference",
        "--languages",
    ):
        assert flag in result.output


def test_options_take_their_bounds_and_defaults_from_the_run_config():
    """One source for ranges: the flag's type is built from the RunConfig field."""
    from benchsmith.cli import cli
    from benchsmith.config import RunConfig

    params = {p.name: p for p in cli.commands["build"].params}
    assert (params["concurrency"].type.min, params["concurrency"].type.max) == (1, 64)
    assert params["concurrency"].default == RunConfig().concurrency
    # The retired record path's knobs are gone: a flag for them is a usage error.
    assert "max_fix_attempts" not in params and "reword" not in params
    assert list(params["judge"].type.choices) == ["auto", "enforce", "advisory", "off"]
    plan_params = {p.name: p for p in cli.commands["plan"].params}
    assert (plan_params["max_subtasks"].type.min, plan_params["max_subtasks"].type.max) == (1, 12)


def test_config_from_options_keeps_only_what_the_user_gave(tmp_path):
    """A default seed is not a given seed; a given 0 is (a resumed build keeps its seed)."""
    import click

    from benchsmith.cli_options import config_from_options, config_option, planning_options

    seen = {}

    @click.command()
    @config_option("seed")
    @planning_options
    @click.pass_context
    def probe(ctx, **_options):
        seen["config"] = config_from_options(ctx)

    probe.main(["--catalog", str(tmp_path), "--language", "en,fr"], standalone_mode=False)
    config = seen["config"]
    assert "seed" not in config.model_fields_set and config.seed == 0
    assert config.languages == ["en", "fr"] and config.paths.catalog_dir == str(tmp_path)
    probe.main(["--seed", "0", "--role-model", "judge=openai:gpt-4o"], standalone_mode=False)
    config = seen["config"]
    assert "seed" in config.model_fields_set
    assert config.role_models == {"judge": "openai:gpt-4o"}


def walk_commands(command, path=()):
    """Every command of the CLI with the arguments that reach it."""
    import click

    yield path, command
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from walk_commands(sub, (*path, name))


def example_lines(doc):
    """The lines of a docstring's Example(s) paragraph, stripped."""
    out, inside = [], False
    for line in (doc or "").splitlines():
        text = line.strip()
        if text in ("Example:", "Examples:"):
            inside = True
        elif inside and text:
            out.append(text)
        else:
            inside = False
    return out


def test_every_help_shows_examples_as_written_one_a_line():
    """click keeps a paragraph as written after a line holding only the \\b character; a
    raw docstring turns that into a literal backslash-b and runs the examples together."""
    from click.testing import CliRunner

    from benchsmith.cli import cli

    with_examples = []
    for path, command in walk_commands(cli):
        result = CliRunner().invoke(cli, [*path, "--help"], terminal_width=80)
        assert result.exit_code == 0, (path, result.output)
        assert "\\b" not in result.output and "\b" not in result.output, path
        shown = [line.strip() for line in result.output.splitlines()]
        examples = example_lines(command.help)
        for example in examples:
            assert example.startswith("benchsmith "), (path, example)
            assert example in shown, (path, example, result.output)
        if examples:
            with_examples.append(" ".join(path))
    assert {"build", "eval", "plan", "review"} <= set(with_examples)


def test_the_progress_clock_runs_while_a_slow_step_finishes_nothing():
    import io
    import re
    import time

    from benchsmith.cli_build import BuildProgress

    out = io.StringIO()
    progress = BuildProgress(enabled=True, file=out, refresh_every=0.02)
    progress("collect", {"targets": {"g": 3}, "subtask_targets": {"capitals": 3}})
    assert progress.ticker is not None and progress.ticker.running

    def clocks():
        return re.findall(r"\[(\d\d:\d\d)<", out.getvalue())

    # The slow step: no update reaches the bar until its clock has moved on (tqdm shows
    # whole seconds); the deadline only stops a broken ticker from hanging the test.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and clocks()[-1] == clocks()[0]:
        time.sleep(0.05)
    assert clocks()[0] == "00:00" and clocks()[-1] != "00:00", out.getvalue()
    assert progress.bar.n == 0  # no item finished meanwhile
    progress("realize:accept", {"tallies": {"capitals": {"accepted": 1}}})
    progress("realize", {"tallies": {"capitals": {"accepted": 1}}})  # the task's total: ignored
    assert progress.bar.n == 1
    progress.close()
    assert not progress.ticker.running
    frames = len(clocks())
    time.sleep(0.1)
    assert len(clocks()) == frames  # nothing redraws a closed bar


def test_ticker_interval_follows_the_stream():
    import io

    from benchsmith.cli_progress import (
        LOG_REFRESH_SECONDS,
        TTY_REFRESH_SECONDS,
        Ticker,
        refresh_seconds,
    )

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert refresh_seconds(Tty()) == TTY_REFRESH_SECONDS
    assert refresh_seconds(io.StringIO()) == LOG_REFRESH_SECONDS
    with pytest.raises(ValueError, match="positive"):
        Ticker(object(), 0)


def test_build_summary_names_the_folder_and_the_next_commands(tmp_path, monkeypatch):
    """A real `benchsmith build --spec` through click, on the scripted fake model."""
    import shlex
    from pathlib import Path

    from click.testing import CliRunner

    sys.path.insert(0, str(Path(__file__).parent / "agents"))  # the executor's fakes
    from executor_fakes import Router, judge_yes, make_catalog, make_spec

    from benchsmith.cli import cli
    from benchsmith.llm.client import LLMRuntime
    from benchsmith.testing.fake_chat import ScriptedChatModel

    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("BENCHSMITH_", "OPENAI_")):
            monkeypatch.delenv(name)
    _catalog, card = make_catalog(tmp_path)
    spec_path = tmp_path / "spec.json"
    spec = make_spec([("capitals--capitals", "capitals", 3, card.size, {})])
    spec_path.write_text(spec.model_dump_json())
    router = Router(JudgeVerdict=judge_yes)
    fake = ScriptedChatModel(script=[router], repeat_last=True)
    real = LLMRuntime.from_config.__func__

    def scripted(cls, config, **kw):
        return real(cls, config, **kw, env={}, chat_factory=lambda spec, **_: fake)

    monkeypatch.setattr(LLMRuntime, "from_config", classmethod(scripted))
    out = tmp_path / "my bench"
    args = ["build", "--spec", str(spec_path), "--out", str(out), "--catalog"]
    args += [str(tmp_path / "catalog"), "--judge", "enforce"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert len(router.prompts["JudgeVerdict"]) == 3  # the fake judged each item
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"complete: 3 of 3 items in {out} ")
    folder = shlex.quote(str(out))
    assert f"benchmark: {out} (report: {out / 'report.md'})" in lines
    tail = lines[lines.index("next:") + 1 :]
    assert tail[0] == f"  benchsmith review {folder}"
    assert tail[1].startswith(f"  benchsmith eval {folder} --model SPEC  # ")
    task = os.path.relpath(out / "inspect_task.py")
    assert tail[2] == f"  inspect eval {shlex.quote(task)} --model openai/gpt-4o-mini"
    report = json.loads((out / "report.json").read_text())
    lm = report["exports"]["lm_eval"]
    assert tail[3].startswith(
        f"  lm_eval --include_path {shlex.quote(str(out / 'lmeval'))} --tasks {lm['task']} "
    )
    # Every path the summary names is there, and the commands it names exist.
    assert (out / "report.md").is_file() and (out / "inspect_task.py").is_file()
    assert (out / lm["yaml"]).is_file()
    for words in (["review"], ["eval"]):
        assert CliRunner().invoke(cli, [*words, "--help"]).exit_code == 0
    assert len(tail) == 4


def test_an_intent_is_read_from_a_file_and_an_empty_file_is_refused(tmp_path, capsys):
    from benchsmith.cli import main

    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    assert main(["build", "--intent-file", str(empty), "--out", str(tmp_path / "o")]) == 2
    assert "the file is empty" in capsys.readouterr().err
    intent = tmp_path / "intent.txt"
    intent.write_text("- keep only cars\n- ask how many\n", encoding="utf-8")
    args = ["build", "x", "--intent-file", str(intent), "--out", str(tmp_path / "o")]
    assert main(args) == 2
    assert "not both" in capsys.readouterr().err
