"""THE game rules, one representation: digging, drops, crafting (game.py), and the dynamics compiled
into tables and applied by one interpreter with one counter-based random stream, which the
program simulator, the step API and the live world master all execute."""
