// libmosquitto's client API (Debian libmosquitto-dev), for lector-mqtt.
#include <mosquitto.h>
