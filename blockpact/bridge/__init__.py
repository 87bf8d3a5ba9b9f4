"""blockpact.bridge"""
