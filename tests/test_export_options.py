"""Each export format owns its options: one model per format in load/export_options.py.

`print.exports` validates a key only where its format declares it, the exporters read their own
model, and the docs' table of formats and the reference are written from the registry.
"""

from __future__ import annotations

import re
import typing

import pytest
from conftest import ROOT, run_pnp

from generator import exports
from generator.load import export_options, validation
from generator.load.export_options import OPTIONS, PngOptions, SheetsOptions, TtsOptions
from generator.load.model import Game
from generator.load.yamlload import load_yaml


def _game(tmp_path, exports_yaml: str):
    path = tmp_path / "game.yaml"
    path.write_text(f"id: g\ntitle: G\nlanguages: [en]\nprint:\n  exports:\n{exports_yaml}")
    return validation.validate(Game, load_yaml(path), path)


def _error(tmp_path, exports_yaml: str) -> str:
    from generator.errors import ContentError

    with pytest.raises(ContentError) as info:
        _game(tmp_path, exports_yaml)
    return str(info.value)


def test_every_format_is_its_own_model_in_both_registries():
    assert tuple(exports.FORMATS) == tuple(OPTIONS) == export_options.EXPORT_FORMATS
    for name, model in OPTIONS.items():
        assert typing.get_args(model.model_fields["format"].annotation) == (name,)
        assert exports.exporter(name).options is model, name


def test_a_key_is_valid_only_for_a_format_that_takes_it(tmp_path):
    ok = _game(
        tmp_path,
        "    - sheets\n"
        "    - {format: png, preset: thegamecrafter, dpi: 300, components: [a]}\n"
        "    - {format: tts, base_url: 'https://example.org/kit', dpi: 72, as: board}\n",
    )
    sheets, png, tts = ok.print.exports
    assert isinstance(sheets, SheetsOptions) and sheets.components is None
    assert isinstance(png, PngOptions) and (png.preset, png.dpi) == ("thegamecrafter", 300)
    assert isinstance(tts, TtsOptions) and (tts.dpi, tts.as_) == (72, "board")

    message = _error(tmp_path, "    - sheets\n    - {format: sheets, dpi: 300}\n")
    assert re.search(
        r"game\.yaml:7: print\.exports\[1\]\.dpi: export 'sheets' has no key 'dpi'", message
    )
    assert "sheets takes: format, components" in message and "png, tts" in message
    message = _error(tmp_path, "    - format: png\n      base_url: https://example.org\n")
    assert "game.yaml:7: print.exports[0].base_url: export 'png' has no key 'base_url'" in message
    assert "png takes: format, components, preset, dpi" in message
    message = _error(tmp_path, "    - {format: gutterfold, as: deck}\n")
    assert "export 'gutterfold' has no key 'as'" in message and "a key of tts" in message


def test_an_unknown_format_names_the_formats(tmp_path):
    message = _error(tmp_path, "    - sheets\n    - format: pdf\n      dpi: 300\n")
    assert "game.yaml:7: print.exports[1].format: unknown export format 'pdf'" in message
    assert "formats: sheets, print-shop, png, tts, gutterfold, ink-saver" in message
    message = _error(tmp_path, "    - ttss\n")
    assert "print.exports[0]: unknown export format 'ttss'; did you mean 'tts'?" in message
    assert "an export without 'format'" in _error(tmp_path, "    - {dpi: 300}\n")
    assert "'auto', 'deck', 'board' or 'tile'" in _error(
        tmp_path, "    - {format: tts, as: pile}\n"
    )


def test_a_component_export_with_a_foreign_key_fails_the_check_at_its_line(dogfight_copy):
    comp = dogfight_copy / "content/dogfight/components/rewards.yaml"
    lines = comp.read_text().splitlines()
    comp.write_text("\n".join([*lines, "print: {exports: [{format: ink-saver, dpi: 150}]}"]) + "\n")
    result = run_pnp(dogfight_copy, "check", "dogfight")
    assert result.returncode == 2
    out = result.stdout + result.stderr
    assert f"rewards.yaml:{len(lines) + 1}: print.exports[0].dpi: export 'ink-saver'" in out


def test_every_real_games_exports_still_validate():
    for game in sorted((ROOT / "content").glob("*/game.yaml")):
        validation.validate(Game, load_yaml(game), game)
    for comp in sorted((ROOT / "content").glob("*/components/*.yaml")):
        raw = load_yaml(comp)
        for spec in (raw.get("print") or {}).get("exports") or []:
            name = spec if isinstance(spec, str) else spec["format"]
            OPTIONS[name].model_validate({"format": name} if isinstance(spec, str) else spec)


def test_the_docs_table_of_formats_is_the_registry():
    page = (ROOT / "docs/printing-and-exports.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- export formats:[^\n]*-->\n(.*?)\n<!-- /export formats -->", page, re.S)
    assert match, "docs/printing-and-exports.md has no generated table of export formats"
    assert match.group(1).strip() == export_options.docs_table().strip()
    for name, model in OPTIONS.items():
        assert f"| `{name}` |" in match.group(1)
        for key, info in model.model_fields.items():
            if (info.alias or key) not in export_options.COMMON_KEYS:
                assert f"`{info.alias or key}`" in match.group(1)


def test_the_reference_lists_every_formats_options():
    reference = (ROOT / "docs/reference.md").read_text(encoding="utf-8")
    section = reference.split("## Export formats", 1)[1].split("\n## ", 1)[0]
    for model in OPTIONS.values():
        assert f"### {model.__name__}" in section
    assert "| `as` | `auto` / `deck` / `board` / `tile` | `auto` |" in section
    assert "### ExportSpec" not in reference
