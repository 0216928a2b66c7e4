"""bench/framework_race.py's chart: measured peak (MiB) against re-run
GFLOP, remat's block-level and op-level points joined into curves (by
budget), every peer and compile point labelled. Drawn with Pillow, which
the PyTorch 2 venv has (torchvision needs it); matplotlib is not pinned
there and the venv's requirements stay as scripts/torch2-python pins them."""
W, H, MARGIN = 1100, 760, 80
COLOURS = {"block-level": (31, 119, 180), "op-level": (214, 39, 40), "peer": (40, 40, 40), "compile": (44, 160, 44),
           "auto-sac": (148, 103, 189)}


def draw(result, path):
    """Writes the PNG; returns None, or why it could not."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as e:
        return f"Pillow is not installed ({e})"
    points = result["points"]
    if not points:
        return "no measured points"
    xs = [p["recompute_flops"] / 1e9 for p in points]
    ys = [p["observed_peak_bytes"] / 2**20 for p in points]
    x0, x1 = min(0.0, min(xs)), max(xs) or 1.0
    y0, y1 = 0.0, max(ys) * 1.05
    x1 += (x1 - x0) * 0.25  # room for the rightmost labels

    def at(x, y):
        return (MARGIN + (x - x0) / (x1 - x0) * (W - 2 * MARGIN), H - MARGIN - (y - y0) / (y1 - y0) * (H - 2 * MARGIN))

    image = Image.new("RGB", (W, H), "white")
    pen = ImageDraw.Draw(image)
    pen.rectangle([MARGIN, MARGIN, W - MARGIN, H - MARGIN], outline=(0, 0, 0))
    for k in range(6):
        x, y = x0 + (x1 - x0) * k / 5, y0 + (y1 - y0) * k / 5
        pen.text((at(x, y0)[0] - 12, H - MARGIN + 6), f"{x:.3g}", fill=(0, 0, 0))
        pen.text((8, at(x0, y)[1] - 6), f"{y:.3g}", fill=(0, 0, 0))
    pen.text((W // 2 - 60, H - 30), "re-run GFLOP (FlopCounterMode formulas)", fill=(0, 0, 0))
    pen.text((8, 20), f"measured peak MiB (project CPU counter)  -  {result['model']}, PyTorch {result['torch']}",
             fill=(0, 0, 0))
    for granularity, name in (("module", "block-level"), ("op", "op-level")):
        curve = sorted((p for p in points if p["kind"] == "remat" and p.get("granularity") == granularity),
                       key=lambda p: p["budget_bytes"])
        line = [at(p["recompute_flops"] / 1e9, p["observed_peak_bytes"] / 2**20) for p in curve]
        if len(line) > 1:
            pen.line(line, fill=COLOURS[name], width=2)
    for k, p in enumerate(points):
        x, y = at(p["recompute_flops"] / 1e9, p["observed_peak_bytes"] / 2**20)
        key = p["kind"] if p["kind"] != "remat" else ("op-level" if p.get("granularity") == "op" else "block-level")
        colour = COLOURS[key]
        pen.ellipse([x - 4, y - 4, x + 4, y + 4], fill=colour)
        if p["kind"] != "remat":  # remat's points are the curves; labelling each would bury the peers
            pen.text((x + 6, y - 14 - 10 * (k % 2)), p["who"], fill=colour)
    legend = [("remat block-level", COLOURS["block-level"]), ("remat op-level", COLOURS["op-level"]),
              ("eager peers", COLOURS["peer"]), ("torch.compile (aot_eager)", COLOURS["compile"]), ("PyTorch auto-SAC", COLOURS["auto-sac"])]
    for k, (text, colour) in enumerate(legend):
        pen.rectangle([W - MARGIN - 200, MARGIN + 10 + 16 * k, W - MARGIN - 190, MARGIN + 20 + 16 * k], fill=colour)
        pen.text((W - MARGIN - 184, MARGIN + 8 + 16 * k), text, fill=colour)
    image.save(path)
    return None
