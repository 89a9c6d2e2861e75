"""Squarified treemap layout (Bruls, Huizing and van Wijk, 2000): rectangles close to squares."""

__all__ = ["squarify"]


def squarify(values, x, y, width, height) -> list[tuple[float, float, float, float]]:
    """Rectangles ``(x, y, w, h)`` tiling the box, one per value, areas proportional to the values.

    ``values`` should be sorted largest first and positive; the result is in the same order.
    """
    total = float(sum(values))
    if total <= 0 or width <= 0 or height <= 0:
        return [(x, y, 0.0, 0.0) for _v in values]
    areas = [v * width * height / total for v in values]
    rects = []
    while areas:
        side = min(width, height)
        row = [areas[0]]
        while len(row) < len(areas) and _worst(row + [areas[len(row)]], side) <= _worst(row, side):
            row.append(areas[len(row)])
        thickness = sum(row) / side
        offset = 0.0
        for area in row:
            length = area / thickness
            if width >= height:  # a column on the left
                rects.append((x, y + offset, thickness, length))
            else:  # a row at the bottom
                rects.append((x + offset, y, length, thickness))
            offset += length
        if width >= height:
            x, width = x + thickness, width - thickness
        else:
            y, height = y + thickness, height - thickness
        areas = areas[len(row):]
    return rects


def _worst(row, side):
    """The worst aspect ratio of a row of areas laid along ``side``."""
    total = sum(row)
    return max(max(side * side * a / (total * total), (total * total) / (side * side * a)) for a in row)
