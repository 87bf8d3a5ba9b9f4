"""Test doubles that speak real protocols, for tests and manual runs without hosted services.

`openai_stub.OpenAIStub` is a local OpenAI-compatible HTTP server.
"""
