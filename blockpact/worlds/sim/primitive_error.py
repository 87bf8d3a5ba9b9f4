"""The error of a primitive used wrongly (an unknown name, no furnace nearby), apart from the primitives so that
each part of them (primitives.py, craft_primitives.py, chest_primitives.py) raises the same one."""


class PrimitiveError(Exception):
    """A primitive used wrongly; ends the program like a thrown Error in Voyager."""
