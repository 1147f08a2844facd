"""Sampling a model with its engines: the driver behind :func:`zoo.sample`, progress."""
