"""blockpact.experiments"""
