"""Runs of ``zoo check``: both engines' draws of a model, saved to and loaded from disk."""
