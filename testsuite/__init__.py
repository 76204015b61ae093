"""The collection's test suite beside nbval (wired into pytest by conftest.py), and `make bench`."""
