"""Text processing: spaCy/NLTK loaders and ARO word-order caption perturbations."""
