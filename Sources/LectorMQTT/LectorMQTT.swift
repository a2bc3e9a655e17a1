// LectorMQTT: the MQTT bridge `lector-mqtt`, a client of lectord's socket and of a broker.
//
// Owns the bridge (`Bridge`: one thread that reads lectord and keeps each camera's text
// and status), its link to lectord, the bounded publish queue, Home Assistant discovery,
// topic names, options and mqtt.conf, and the only libmosquitto wrapper
// (`MosquittoClient`, over the system library CMosquitto). May import LectorClient,
// LectorProtocol, LectorSystem and CMosquitto: no Tesseract, V4L2 or libjpeg.
