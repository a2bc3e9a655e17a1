#ifndef LECTOR_CTESSERACT_SHIM_H
#define LECTOR_CTESSERACT_SHIM_H
#include <stdbool.h>
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>
#endif
