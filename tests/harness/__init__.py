"""pytest plugins for the whole suite (loaded by tests/conftest.py): what every test gets without asking."""
