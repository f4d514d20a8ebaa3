"""The registry's contract: names, schemas, parameters, inputs, paths, provenance."""

import os
import typing

import pytest
from pydantic import BaseModel, ValidationError

from benchsmith.errors import ToolParamError, UnknownToolError, UnsafePathError
from benchsmith.tools.context import ToolContext, confine, stable_seed
from benchsmith.tools.registry import (
    InputSpec,
    ToolOutput,
    ToolParams,
    get_tool,
    registry,
    render_tools,
    run_tool,
    tool,
    tool_name_type,
)


def make_png(path, size=(40, 30), color="blue"):
    from PIL import Image

    Image.new("RGB", size, color).save(path)
    return path


def test_every_tool_is_well_formed():
    tools = registry()
    assert len(tools) >= 1
    for name, spec in tools.items():
        assert name == spec.name and name.islower()
        assert spec.description and len(spec.description) > 20, name
        assert issubclass(spec.params, ToolParams)
        schema = spec.parameters_schema()
        assert schema["type"] == "object" and "output_name" not in schema.get("properties", {})
        for key, prop in schema.get("properties", {}).items():
            assert prop.get("description"), f"{name}.{key} has no description"


def test_render_tools_lists_names_inputs_descriptions_and_schemas():
    text = render_tools(["image_resize"])
    assert text.startswith("- image_resize (image; takes 1 image file(s)): Resize")
    assert '"width":{"description":"Output width in pixels."' in text
    assert "title" not in text


def test_tool_name_type_constrains_choices():
    names = typing.get_args(tool_name_type())
    assert "image_resize" in names

    class Step(BaseModel):
        tool: tool_name_type(["image_resize"])

    assert Step(tool="image_resize").tool == "image_resize"
    with pytest.raises(ValidationError):
        Step(tool="image_resize_please")


def test_unknown_tool_suggests_close_names():
    with pytest.raises(UnknownToolError, match="did you mean image_resize"):
        get_tool("image_resise")


def test_bad_parameters_and_input_counts(tool_ctx, tmp_path):
    png = make_png(tmp_path / "a.png")
    with pytest.raises(ToolParamError, match="width: Input should be greater than or equal to 1"):
        run_tool("image_resize", {"width": 0, "height": 5}, [png], tool_ctx)
    with pytest.raises(ToolParamError, match="Extra inputs are not permitted"):
        run_tool("image_resize", {"width": 5, "height": 5, "colour": "x"}, [png], tool_ctx)
    with pytest.raises(ToolParamError, match="takes 1 image file"):
        run_tool("image_resize", {"width": 5, "height": 5}, [png, png], tool_ctx)


def test_provenance_is_reproducible_and_names_are_deterministic(tmp_path):
    png = make_png(tmp_path / "a.png")
    results = []
    for run in ("r1", "r2"):
        ctx = ToolContext(media_dir=tmp_path / run, seed=5)
        results.append(run_tool("image_resize", {"width": 20, "height": 10}, [png], ctx))
    a, b = results
    assert a.provenance == b.provenance
    assert a.outputs == b.outputs
    assert (tmp_path / "r1" / a.outputs[0]).read_bytes() == (
        tmp_path / "r2" / b.outputs[0]
    ).read_bytes()
    assert a.provenance.measured == {"width": 20, "height": 10, "mode": "RGB", "format": "png"}
    assert a.provenance.outputs[0].bytes == (tmp_path / "r1" / a.outputs[0]).stat().st_size
    other_seed = run_tool(
        "image_resize", {"width": 20, "height": 10}, [png], ToolContext(tmp_path / "r3", seed=6)
    )
    assert other_seed.provenance.seed != a.provenance.seed
    assert stable_seed(1, "x") == stable_seed(1, "x") != stable_seed(2, "x")


@pytest.mark.parametrize(
    "name,reason",
    [
        ("../x.png", "contains '..'"),
        ("a/../../x.png", "contains '..'"),
        ("/tmp/x.png", "is absolute"),
        ("~/x.png", "is absolute"),
        ("x\x00.png", "NUL byte"),
        ("a\\..\\x.png", "backslash"),
        (".", "outside the media folder"),
    ],
)
def test_unsafe_output_names_are_refused_and_create_nothing(tmp_path, name, reason):
    media = tmp_path / "media"
    media.mkdir()
    png = make_png(tmp_path / "a.png")
    before = sorted(p for p in tmp_path.rglob("*"))
    with pytest.raises(UnsafePathError, match=reason):
        run_tool(
            "image_resize",
            {"width": 5, "height": 5, "output_name": name},
            [png],
            ToolContext(media_dir=media),
        )
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_empty_output_name_is_a_parameter_error(tool_ctx, tmp_path):
    png = make_png(tmp_path / "a.png")
    with pytest.raises(ToolParamError, match="output_name"):
        run_tool("image_resize", {"width": 5, "height": 5, "output_name": ""}, [png], tool_ctx)
    with pytest.raises(UnsafePathError, match="is empty"):
        confine(tmp_path, " ")


def test_sibling_prefix_and_symlink_escapes_are_refused(tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    outside = tmp_path / "media2"
    outside.mkdir()
    (media / "link").symlink_to(outside)
    (media / "filelink.png").symlink_to(tmp_path / "target.png")
    for name in ("link/x.png", "filelink.png", "link"):
        with pytest.raises(UnsafePathError, match="outside the media folder"):
            confine(media, name)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "target.png").exists()
    assert confine(media, "sub/ok.png") == (media / "sub" / "ok.png").resolve()
    assert not (media / "sub").exists()  # confine() itself creates nothing


def test_registering_twice_or_without_docstring_is_refused():
    class P(ToolParams):
        pass

    def undocumented(ctx, params, inputs):
        return ToolOutput()

    with pytest.raises(ValueError, match="needs a docstring"):
        tool("test_undocumented", params=P, category="data")(undocumented)
    with pytest.raises(ValueError, match="lowercase"):
        tool("Bad-Name", params=P, category="data")
    with pytest.raises(ValueError, match="already registered"):

        @tool("image_resize", params=P, category="image", inputs=InputSpec("image"))
        def impostor(ctx, params, inputs):
            """Pretend to resize."""
            return ToolOutput()


def test_media_folder_is_created_lazily(tmp_path):
    ctx = ToolContext(media_dir=tmp_path / "not-yet")
    assert not (tmp_path / "not-yet").exists()
    path = ctx.output_path("deep/er/file.wav")
    assert path.parent.is_dir() and not path.exists()
    assert os.path.commonpath([path, tmp_path / "not-yet"]) == str((tmp_path / "not-yet").resolve())


def test_allowed_roots_confine_what_tools_read(tmp_path):
    allowed = tmp_path / "data"
    allowed.mkdir()
    inside = make_png(allowed / "in.png")
    outside = make_png(tmp_path / "out.png")
    ctx = ToolContext(media_dir=tmp_path / "media", allowed_roots=(allowed,))
    assert run_tool("image_resize", {"width": 4, "height": 4}, [inside], ctx).outputs
    with pytest.raises(UnsafePathError, match="outside the folders this run may read"):
        run_tool("image_resize", {"width": 4, "height": 4}, [outside], ctx)
    (allowed / "escape.png").symlink_to(outside)
    with pytest.raises(UnsafePathError):
        run_tool("image_resize", {"width": 4, "height": 4}, [allowed / "escape.png"], ctx)
    secret = tmp_path / "secret.txt"
    secret.write_text("the password is swordfish")
    with pytest.raises(UnsafePathError):
        run_tool("web_search", {"query": "password", "corpus": [str(secret)]}, [], ctx)
