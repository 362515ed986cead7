"""OCR of scanned PDFs: our pipeline vs plain pytesseract on pdf2image pages at 300 dpi.

Usage: python benchmarks/ocr_bench.py [--pages 20] [--quick]

Real text (English: Python documentation; French: Debian's French message catalogues) is set
into text PDFs, whose text layer is the truth. Each page is then scanned three ways and wrapped
as an image-only PDF:
  clean  300 dpi;
  mild   200 dpi, noise, blur, 0.7 degree skew, JPEG quality 75;
  heavy  150 dpi, binarized, eroded strokes, 1.5 degree skew, JPEG quality 40;
  skewed 300 dpi, each page turned by its own angle of 1.5 to 5 degrees either way, as hand-fed
         pages come out of a sheet-fed scanner (Tesseract copes alone with about 2 degrees).
Scores: character error rate and word error rate (rapidfuzz Levenshtein, whitespace normalized),
and seconds per page on this machine's cores.
"""

from __future__ import annotations

import argparse
import gettext
import random
import sys
import time
from io import BytesIO
from pathlib import Path

import numpy as np
import pytesseract
from fpdf import FPDF
from pdf2image import convert_from_bytes
from PIL import Image, ImageFilter
from pypdf import PdfReader
from rapidfuzz.distance import Levenshtein
from scipy import ndimage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import print_table, python_doc_paragraphs  # noqa: E402
from corpus_pipeline.pdf.ocr import ocr_pdf_pages  # noqa: E402
from corpus_pipeline.pdf.settings import PdfSettings  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
LANGUAGES = "eng+fra"


def french_paragraphs(limit: int) -> list[str]:
    """Real French sentences from installed message catalogues, grouped into paragraphs."""
    sentences = []
    for catalogue in sorted(Path("/usr/share/locale/fr/LC_MESSAGES").glob("*.mo")):
        try:
            with catalogue.open("rb") as handle:
                messages = gettext.GNUTranslations(handle)._catalog.values()
        except (OSError, gettext.error if hasattr(gettext, "error") else OSError, Exception):  # noqa: BLE001
            continue
        for message in messages:
            text = " ".join(str(message).replace("%s", "").replace("%d", "").split())
            if 40 <= len(text) <= 300 and text[0].isupper() and "\\" not in text and "{" not in text:
                sentences.append(text)
    random.Random(7).shuffle(sentences)
    return [" ".join(sentences[i : i + 4]) for i in range(0, min(len(sentences), limit * 4), 4)]


def text_pdf(paragraphs: list[str]) -> bytes:
    pdf = FPDF(format="A4")
    pdf.add_font("serif", fname=FONT)
    pdf.set_font("serif", size=11)
    pdf.set_auto_page_break(True, margin=20)
    pdf.add_page()
    for paragraph in paragraphs:
        pdf.multi_cell(w=0, h=6, text=paragraph, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    return bytes(pdf.output())


def scan(page: Image.Image, condition: str, rng: random.Random) -> Image.Image:
    """Degrade a 300 dpi page render as a scanner and a JPEG encoder would."""
    grey = page.convert("L")
    if condition == "clean":
        return grey
    if condition == "skewed":
        angle = rng.uniform(1.5, 5.0) * rng.choice((-1, 1))
        return grey.rotate(angle, expand=True, fillcolor=255, resample=Image.BICUBIC)
    if condition == "mild":
        grey = grey.resize((grey.width * 2 // 3, grey.height * 2 // 3), Image.Resampling.LANCZOS)
        grey = grey.filter(ImageFilter.GaussianBlur(0.6)).rotate(0.7, expand=True, fillcolor=255, resample=Image.BICUBIC)
        pixels = np.asarray(grey, dtype=np.float32) + np.random.default_rng(rng.randrange(10**6)).normal(0, 12, (grey.height, grey.width))
        return _jpeg(Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)), 75)
    grey = grey.resize((grey.width // 2, grey.height // 2), Image.Resampling.LANCZOS)
    ink = np.asarray(grey) < 150
    ink = ndimage.binary_erosion(ink, structure=np.ones((1, 2))) | ndimage.binary_erosion(ink, structure=np.ones((2, 1)))
    broken = ink & (np.random.default_rng(rng.randrange(10**6)).random(ink.shape) > 0.12)
    binary = Image.fromarray(np.where(broken, 0, 255).astype(np.uint8))
    return _jpeg(binary.rotate(-1.5, expand=True, fillcolor=255, resample=Image.BICUBIC), 40)


def _jpeg(image: Image.Image, quality: int) -> Image.Image:
    buffer = BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return Image.open(BytesIO(buffer.getvalue()))


def image_pdf(images: list[Image.Image], dpi: int) -> bytes:
    buffer = BytesIO()
    images[0].save(buffer, format="PDF", resolution=float(dpi), save_all=True, append_images=images[1:])
    return buffer.getvalue()


def cleaned(text: str) -> str:
    return " ".join(text.split())


def error_rates(predicted: list[str], truth: list[str]) -> tuple[float, float]:
    chars = sum(Levenshtein.distance(cleaned(p), cleaned(t)) for p, t in zip(predicted, truth))
    words = sum(Levenshtein.distance(cleaned(p).split(), cleaned(t).split()) for p, t in zip(predicted, truth))
    return chars / sum(len(cleaned(t)) for t in truth), words / sum(len(cleaned(t).split()) for t in truth)


def plain(data: bytes) -> list[str]:
    """The baseline: pdf2image pages at 300 dpi straight into pytesseract."""
    return [pytesseract.image_to_string(image, lang=LANGUAGES) for image in convert_from_bytes(data, dpi=300)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=20, help="pages per language half (total = pages)")
    parser.add_argument("--quick", action="store_true", help="4 pages")
    args = parser.parse_args()
    pages = 4 if args.quick else args.pages
    rng = random.Random(42)
    english = text_pdf(python_doc_paragraphs(limit=pages * 6))
    french = text_pdf(french_paragraphs(limit=pages * 6))
    documents = []
    for data in (english, french):
        reader = PdfReader(BytesIO(data))
        count = min(len(reader.pages), pages // 2)
        truth = [reader.pages[i].extract_text() for i in range(count)]
        renders = convert_from_bytes(data, dpi=300, first_page=1, last_page=count)
        documents.append((truth, renders))
    settings = PdfSettings(languages=LANGUAGES)
    rows = []
    for condition, dpi in (("clean", 300), ("mild", 200), ("heavy", 150), ("skewed", 300)):
        truth, ours_text, plain_text = [], [], []
        ours_seconds = plain_seconds = 0.0
        for page_truth, renders in documents:
            data = image_pdf([scan(image, condition, rng) for image in renders], dpi)
            started = time.perf_counter()
            ours_text += [text for _, text in sorted(ocr_pdf_pages(data, list(range(len(renders))), settings).items())]
            ours_seconds += time.perf_counter() - started
            started = time.perf_counter()
            plain_text += plain(data)
            plain_seconds += time.perf_counter() - started
            truth += page_truth
        cer, wer = error_rates(ours_text, truth)
        plain_cer, plain_wer = error_rates(plain_text, truth)
        rows.append([condition, "ours", cer, wer, ours_seconds / len(truth)])
        rows.append([condition, "plain pytesseract 300 dpi", plain_cer, plain_wer, plain_seconds / len(truth)])
        rows.append([condition, "ours / plain", cer / max(plain_cer, 1e-9), wer / max(plain_wer, 1e-9), ours_seconds / max(plain_seconds, 1e-9)])
        print_table(f"{condition} scans ({len(truth)} pages, English and French)", ["condition", "method", "CER", "WER", "s/page"], rows[-3:])
    print_table("Summary", ["condition", "method", "CER", "WER", "s/page"], rows)


if __name__ == "__main__":
    main()
