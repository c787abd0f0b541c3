"""The wheel carries pnp's defaults: the repository's templates/ becomes the package data
`generator/defaults/` (fonts, languages, rulebook and guide templates, paper and card sizes,
printer presets, the starter, the shared layout bases). Everything else is in pyproject.toml.

The repository keeps one copy of the defaults, in templates/ where its own games use them;
a source checkout (and an editable install) reads them there (generator/load/project.py).
Which files go is a list of folders and patterns, never of file names: whatever templates/fonts/
holds ships. The games' own layouts (templates/layouts/<game>/) stay out: they are this
repository's project, not defaults.
"""

from pathlib import Path

from setuptools import find_packages, setup

# Folders of templates/ shipped whole, and the top-level files shipped.
SHIPPED = ("fonts", "guide", "languages", "rulebook", "starter", "layouts/base")
TOP = ("*.yaml",)


def data_folders() -> list[str]:
    """The shipped folders as package names: setuptools warns about any folder of package data
    that it could import but was not told of, so each one is named (data only, no code)."""
    root = Path(__file__).parent / "templates"
    names = {"layouts"}  # the parent of layouts/base, itself not shipped whole
    for folder in SHIPPED:
        for path in [root / folder, *(root / folder).rglob("*")]:
            if path.is_dir() and path.name != "__pycache__":
                names.add(path.relative_to(root).as_posix().replace("/", "."))
    return sorted(f"generator.defaults.{name}" for name in names)


setup(
    packages=[
        *find_packages(include=["generator", "generator.*"]),
        "generator.defaults",
        *data_folders(),
    ],
    package_dir={"generator.defaults": "templates"},
    package_data={
        "generator": ["limits.yaml"],
        "generator.defaults": [*TOP, *(f"{folder}/**/*" for folder in SHIPPED)],
    },
    exclude_package_data={"generator.defaults": ["**/__pycache__/*", "**/*.pyc"]},
)
