"""blockpact.agents"""
