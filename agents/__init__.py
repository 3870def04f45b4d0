"""leogym.agents"""
