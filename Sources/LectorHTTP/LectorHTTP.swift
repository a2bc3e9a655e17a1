// LectorHTTP: the lector-http bridge. A client of lectord's socket (LectorClient) that
// serves a web page and a small HTTP API with libmicrohttpd (CMicroHTTPD, called from
// MicroHTTPD.swift only). No Tesseract, V4L2 or libjpeg: JPEGs come from lectord.
