"""leogym.baselines"""
