__version__ = "0.1.0"

# Importing the package attaches the hardness measures (diameter, value norm, ...) to every MDP, as in Colosseum, while
# the `mdp` layer itself never imports the higher `hardness` layer.
from . import hardness as _hardness
