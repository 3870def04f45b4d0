"""leogym.conf"""
