"""pnp: print-and-play component generator.

Pipeline: content (YAML) -> model -> check -> render -> impose -> write.
"""

__version__ = "0.1.0"
