import base64
import io

from PIL import Image

# 1x1 transparent PNG used as a placeholder avatar.
PLACEHOLDER_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
    "60e6kgAAAABJRU5ErkJggg=="
)

# Small checkerboard icon, 8x8 GIF.
CHECKER_GIF = (
    "R0lGODlhCAAIAPAAAP///wAAACH5BAAAAAAALAAAAAAIAAgAAAINhI8Qy+0PGpxU0sqp"
    "KwA7"
)


def avatar_or_placeholder(data: bytes | None) -> Image.Image:
    if not data:
        return Image.open(io.BytesIO(PLACEHOLDER_PNG))
    img = Image.open(io.BytesIO(data))
    img.thumbnail((128, 128))
    return img


def to_data_uri(img: Image.Image) -> str:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
