"""Rebuild codes.yaml from Debian's iso-codes package (run by hand, not by the build).

    apt-get install iso-codes
    python templates/languages/make_codes.py /usr/share/iso-codes/json templates/languages/codes.yaml

codes.yaml holds what a language tag (BCP 47: `de`, `pt-BR`, `zh-Hant`, `sr-Latn`) may be made
of: ISO 639-1 language codes (with their English names, for "did you mean"), ISO 15924 script
codes and ISO 3166-1 region codes. `mistakes` (common wrong codes: sp for Spanish) is kept by
hand, below.
"""

import json
import sys
from pathlib import Path

import yaml

MISTAKES = {  # codes people type that are not (or not that) language: what they meant
    "sp": "es", "jp": "ja", "cz": "cs", "gr": "el", "dk": "da", "ua": "uk", "cn": "zh",
    "kr": "ko", "iw": "he", "in": "id", "ji": "yi", "vn": "vi", "al": "sq",
    "ge": "ka", "ir": "fa", "gb": "en", "us": "en", "mx": "es", "sh": "sr",
}


def main(src: str, dst: str) -> None:
    folder = Path(src)
    langs = json.loads((folder / "iso_639-2.json").read_text())["639-2"]
    scripts = json.loads((folder / "iso_15924.json").read_text())["15924"]
    regions = json.loads((folder / "iso_3166-1.json").read_text())["3166-1"]
    data = {
        "languages": {
            e["alpha_2"]: e["name"].split(";")[0].strip() for e in langs if "alpha_2" in e
        },
        "scripts": {e["alpha_4"]: e["name"] for e in scripts},
        "regions": sorted(e["alpha_2"] for e in regions),
        "mistakes": {k: v for k, v in MISTAKES.items() if k not in [e.get("alpha_2") for e in langs]},
    }
    head = (
        "# What language tags are made of (BCP 47 subset: language[-Script][-REGION]).\n"
        "# Written by make_codes.py from Debian's iso-codes; `mistakes` is kept by hand there.\n"
    )
    Path(dst).write_text(head + yaml.safe_dump(data, allow_unicode=True, width=100))


if __name__ == "__main__":
    main(*sys.argv[1:3])
