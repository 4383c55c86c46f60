"""Support shared by the tests and the benchmarks: throw-away servers and databases, test job kinds.

Not part of the served site; setuptools does not install it.
"""
