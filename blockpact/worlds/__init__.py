"""blockpact.worlds"""
