"""blockpact.judge"""
