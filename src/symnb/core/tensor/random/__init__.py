"""Random draws on counter-based keys (threefry-2x32, as JAX): the generator in NumPy
(``threefry``, ``samplers``) and the random ops (``ops``)."""
