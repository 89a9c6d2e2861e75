"""Rendering and writing results; nothing here computes an analysis."""
