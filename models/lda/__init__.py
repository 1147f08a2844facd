"""Latent Dirichlet allocation: collapsed Gibbs (dense and SparseLDA sweeps), counts."""
