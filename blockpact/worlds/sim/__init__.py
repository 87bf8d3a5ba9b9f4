"""The program simulator: a world state with its discrete-event clock, and Voyager's primitives on it."""
