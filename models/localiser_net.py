"""The card localiser's network (torch, training only): a small U-Net that labels every pixel.

Input: [N, 3, H, W] BGR in 0-1, H and W multiples of 16 (the working size is 320 wide). Output
at half resolution: [N, 5, H/2, W/2] = 4 class logits (background, uno_face, uno_back,
playing_card) and 1 core logit (`synth.composites` says what a core is). About 60k weights:
a CPU trains it from scratch in minutes, and onnxruntime runs it on a 320x192 frame in a few
milliseconds on one core. Four stride-2 stages give a receptive field of about 150 px at the
working size, enough to see a card held close to the camera (up to about 170 px high) whole.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

N_CLASSES = 4
OUTPUTS = N_CLASSES + 1


def _conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def _separable(cin: int, cout: int, dilation: int = 1) -> nn.Sequential:
    """Depthwise 3x3 then pointwise 1x1: most of the net's reach for a ninth of the cost."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, 1, padding=dilation, dilation=dilation, groups=cin, bias=False),
        nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class LocaliserNet(nn.Module):
    def __init__(self, width: int = 16) -> None:
        super().__init__()
        c1, c2, c3, c4 = width, width * 2, width * 3, width * 4
        self.enc1 = nn.Sequential(_conv(3, c1, 2), _separable(c1, c1))            # 1/2
        self.enc2 = nn.Sequential(_conv(c1, c2, 2), _separable(c2, c2))           # 1/4
        self.enc3 = nn.Sequential(_conv(c2, c3, 2), _separable(c3, c3, 2))        # 1/8
        self.enc4 = nn.Sequential(_conv(c3, c4, 2), _separable(c4, c4, 2),
                                  _separable(c4, c4, 4))                           # 1/16
        self.dec3 = _separable(c4 + c3, c3)
        self.dec2 = _separable(c3 + c2, c2)
        self.dec1 = _separable(c2 + c1, c1)
        self.head = nn.Conv2d(c1, OUTPUTS, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        e3 = self.enc3(e2)
        e4 = self.enc4(e3)
        d3 = self.dec3(torch.cat([F.interpolate(e4, scale_factor=2.0, mode="nearest"), e3], 1))
        d2 = self.dec2(torch.cat([F.interpolate(d3, scale_factor=2.0, mode="nearest"), e2], 1))
        d1 = self.dec1(torch.cat([F.interpolate(d2, scale_factor=2.0, mode="nearest"), e1], 1))
        return self.head(d1)
