"""The frames every test camera of tests/netcam serves: known words and a running frame
number, rendered in gray (Debian's python3-pil and DejaVu fonts), so what lectord reads
can be scored against the text and its lag counted in frames.

`Frames(width, height)` renders the words once and only the number per frame. As a
command (`/usr/bin/python3 frames.py DIR COUNT STEP`) it writes frames 0, STEP, 2*STEP...
as PNG files to DIR (for a replay of the frames an RTSP server encodes). PIL is imported
only where frames are drawn: the suite itself may run on a python3 without it.
"""
import io
import os
import sys

WORDS = ["NETWORK", "CAMERA", "READS", "EVERY", "LINE"]
LINES = ["NETWORK CAMERA", "READS EVERY LINE"]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def frame_text(number):
    """The counter line of frame `number`."""
    return "FRAME %06d" % number


class Frames:
    def __init__(self, width=640, height=480):
        from PIL import Image, ImageDraw, ImageFont
        self.draw = ImageDraw.Draw
        self.width, self.height = width, height
        self.size = max(12, height // 11)
        self.font = ImageFont.truetype(FONT, self.size)
        base = Image.new("L", (width, height), 255)
        draw = ImageDraw.Draw(base)
        self.left = width // 12
        for index, line in enumerate(LINES):
            draw.text((self.left, height // 8 + index * self.size * 2), line, font=self.font, fill=0)
        self.base = base
        self.counter_top = height // 8 + len(LINES) * self.size * 2

    def image(self, number):
        """Frame `number` as a PIL image (mode L)."""
        image = self.base.copy()
        self.draw(image).text((self.left, self.counter_top), frame_text(number), font=self.font, fill=0)
        return image

    def gray(self, number, noise=0):
        """Frame `number` as 8-bit gray bytes; `noise` > 0 darkens each pixel by up to that
        much at random (a picture that costs a decoder much more, text still readable)."""
        data = self.image(number).tobytes()
        if noise:
            import numpy
            pixels = numpy.frombuffer(data, dtype=numpy.uint8)
            data = (pixels - numpy.minimum(pixels, numpy.random.randint(0, noise, pixels.shape, dtype=numpy.uint8))).tobytes()
        return data

    def jpeg(self, number, quality=85):
        out = io.BytesIO()
        self.image(number).save(out, "JPEG", quality=quality)
        return out.getvalue()


if __name__ == "__main__":
    directory, count, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    frames = Frames()
    for index in range(count):
        frames.image(index * step).save(os.path.join(directory, "frame-%06d.png" % index))
