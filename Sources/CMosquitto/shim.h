// libmosquitto's client API (Debian libmosquitto-dev), for lector-mqtt.
#include <mosquitto.h>
#include <mqtt_protocol.h>
