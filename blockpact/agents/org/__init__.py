"""Organizations of agents: command structures (tree, chain, graph, solo) over the shared message pool."""
