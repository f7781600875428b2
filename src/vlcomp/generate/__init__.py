"""Text-to-image backends and automatic filters for generated negative images."""
