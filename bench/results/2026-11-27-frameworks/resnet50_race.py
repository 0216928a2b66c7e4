"""torchvision's ResNet-50 for the race (random weights, 1000 classes):
4 images of 3 x 96 x 96. The model returns logits and no loss, so the
race's step backpropagates a fixed random gradient of the logits' size
(remat_torch.steps)."""
import torch
import torchvision


def model():
    return torchvision.models.resnet50(weights=None)


def inputs():
    return torch.randn(4, 3, 96, 96)
