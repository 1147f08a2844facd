"""A PyMC program as the specification of a user's model (``zoo validate --model``)."""
