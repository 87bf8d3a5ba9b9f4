"""blockpact.skills"""
