"""Tools: the registry and the deterministic tools that realize items.

Importing the package registers every built-in tool: each tool module below registers its
tools with :func:`benchsmith.tools.registry.tool` when imported, and the registry itself
imports none of them (as in inspect_ai, the registry is a leaf the tool package imports).
The tool modules import their heavy libraries (Pillow, numpy, pydub, pyarrow, ddgs, httpx)
inside the functions that use them, so this import stays light.
"""

from benchsmith.tools import audio, convert, image, search, transform, tts

__all__ = ["audio", "convert", "image", "search", "transform", "tts"]
