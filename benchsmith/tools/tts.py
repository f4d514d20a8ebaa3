"""tts tools (being written)."""
