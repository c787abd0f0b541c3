"""The wheel carries pnp's defaults: the repository's templates/ becomes the package data
`generator/defaults/` (fonts, languages, rulebook and guide templates, paper and card sizes,
printer presets, the starter, the shared layout bases). Everything else is in pyproject.toml.

The repository keeps one copy of the defaults, in templates/ where its own games use them;
a source checkout (and an editable install) reads them there (generator/load/project.py).
Which files go is a list of folders and patterns, never of file names: whatever templates/fonts/
holds ships. The games' own layouts (templates/layouts/<game>/) stay out: they are this
repository's project, not defaults.
"""

from setuptools import find_packages, setup

# Folders of templates/ shipped whole, and the top-level files shipped.
SHIPPED = ("fonts", "guide", "languages", "rulebook", "starter", "layouts/base")
TOP = ("*.yaml",)

setup(
    packages=[*find_packages(include=["generator", "generator.*"]), "generator.defaults"],
    package_dir={"generator.defaults": "templates"},
    package_data={
        "generator": ["data/*.yaml", "limits.yaml"],
        "generator.defaults": [*TOP, *(f"{folder}/**/*" for folder in SHIPPED)],
    },
    exclude_package_data={"generator.defaults": ["**/__pycache__/*", "**/*.pyc"]},
)
