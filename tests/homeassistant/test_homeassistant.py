#!/usr/bin/env python3
"""lector-mqtt's Home Assistant discovery against a real Home Assistant Core (2024.3.3,
from PyPI, in the venv tests/homeassistant/run keeps), Debian's mosquitto, a real
lectord and the real lector-mqtt. Runs with the venv's python (it has aiohttp, for HA's
websocket API). Prints one line per check and a closing line "N passed, N failed".

The MQTT config entry is written into .storage/core.config_entries before Home
Assistant first starts; a user, then a long-lived token, come through onboarding. Then:
the entities and their states, the controls end to end (the rotation select changes
lectord's orientation, the button updates the snapshot image, the live text select
changes what the text sensor carries), lectord stopped (recognize_fps unknown), lectord
replaced by one with another camera whose text is longer than HA keeps (the old camera's
entities are removed; the new one's state says it is cut, its attributes hold it all),
a gate camera's rule with a known list and crops, a door camera's QR codes (the Code
sensor, the Code seen event on each appearance, a rule on codes), and home-assistant.log free of any warning or error that mentions mqtt or lector.

Usage: tests/homeassistant/run [NAME...]   (LECTOR_HA_SCREENSHOT=FILE.png also takes a
screenshot of the camera's device page in headless Chromium)
"""
import asyncio
import base64
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import lectortest  # noqa: E402
from lectortest import LECTOR_MQTT, Client, Daemon, Suite, free_port, stop_all, wait_for, workdir, write  # noqa: E402

import aiohttp  # noqa: E402  (Home Assistant's own dependency, in its venv)
from PIL import Image, ImageDraw, ImageFont  # noqa: E402  (likewise)

HASS = os.path.join(os.path.dirname(sys.executable), "hass")
WORK = workdir("lector-ha-test-")
HOSTNAME = "hatest"
# Home Assistant on a loaded 2-core machine: its first start installs nothing (--skip-pip)
# but still loads the frontend and the integrations; a healthy start takes 20-60 s here.
HA_STARTUP_SECONDS = 300
# A message through lectord → bridge → broker → Home Assistant → its API.
SETTLE_SECONDS = 60

suite = Suite("homeassistant")
test = suite.test
check = suite.check


class Process(lectortest.NamedProcess):
    work = WORK


class Broker(Process):
    def __init__(self):
        self.port = free_port()
        conf = write(os.path.join(WORK, "mosquitto.conf"), "\n".join([
            "listener %d 127.0.0.1" % self.port, "persistence false", "allow_anonymous true",
            "log_dest stderr", "log_type error", "log_type warning", "log_type notice"]) + "\n")
        super().__init__("broker", ["/usr/sbin/mosquitto", "-c", conf])

    def start(self):
        super().start()
        self.wait_port(self.port, "mosquitto")
        return self


class Lectord(Daemon):
    def __init__(self, name, *args):
        super().__init__(*args, socket_path=os.path.join(WORK, "lector.sock"),
                         log_path=os.path.join(WORK, "%s.log" % name))


class HomeAssistant(Process):
    """Home Assistant Core on 127.0.0.1:port with the config folder `config`."""

    def __init__(self, broker_port):
        self.port = free_port()
        self.config = os.path.join(WORK, "config")
        self.url = "http://127.0.0.1:%d" % self.port
        self.client_id = self.url + "/"
        self.token = None
        os.makedirs(os.path.join(self.config, ".storage"))
        write(os.path.join(self.config, "configuration.yaml"), "\n".join([
            "homeassistant:", "  name: Lector", "  time_zone: UTC", "  unit_system: metric",
            "  country: DE", "  currency: EUR", "  latitude: 52.5", "  longitude: 13.4", "  elevation: 0",
            "http:", "  server_host: 127.0.0.1", "  server_port: %d" % self.port,
            "frontend:", "logger:", "  default: info"]) + "\n")
        # The MQTT integration, set up as its config flow would have.
        entry = {"entry_id": uuid.uuid4().hex, "version": 1, "minor_version": 1, "domain": "mqtt",
                 "title": "127.0.0.1", "data": {"broker": "127.0.0.1", "port": broker_port, "discovery": True},
                 "options": {}, "pref_disable_new_entities": False, "pref_disable_polling": False,
                 "source": "user", "unique_id": None, "disabled_by": None}
        write(os.path.join(self.config, ".storage", "core.config_entries"), json.dumps(
            {"version": 1, "minor_version": 1, "key": "core.config_entries", "data": {"entries": [entry]}}))
        # Onboarding's other steps count as done: its core_config step would set up the
        # weather, text-to-speech and radio integrations (network services, and more
        # packages); only the user step is left, for the test's user and token.
        write(os.path.join(self.config, ".storage", "onboarding"), json.dumps(
            {"version": 4, "minor_version": 1, "key": "onboarding",
             "data": {"done": ["core_config", "analytics", "integration"]}}))
        super().__init__("homeassistant", [HASS, "-c", self.config, "--skip-pip"])

    def hass_log(self):
        path = os.path.join(self.config, "home-assistant.log")
        return open(path, errors="replace").read() if os.path.exists(path) else ""

    def start(self):
        super().start()

        def up():
            if not self.alive():
                raise AssertionError("Home Assistant exited: " + self.logtext()[-3000:])
            if "Activating recovery mode" in self.hass_log():
                raise AssertionError("Home Assistant started in recovery mode (a requirement missing from "
                                     "tests/homeassistant/requirements.txt?):\n"
                                     + "\n".join(line for line in self.hass_log().splitlines() if " ERROR " in line)[-3000:])
            try:
                return http(self.url + "/api/onboarding", timeout=5)[0] == 200
            except OSError:
                return False
        wait_for(up, HA_STARTUP_SECONDS, "Home Assistant to answer", interval=1)
        return self

    def onboard(self):
        """A user through onboarding, and a long-lived access token."""
        status, body = http(self.url + "/api/onboarding/users", "POST", {
            "client_id": self.client_id, "name": "Lector", "username": "lector", "password": "lector-test",
            "language": "en"})
        assert status == 200, (status, body)
        status, tokens = http(self.url + "/auth/token", "POST", form={
            "grant_type": "authorization_code", "code": body["auth_code"], "client_id": self.client_id})
        assert status == 200, (status, tokens)
        self.token = tokens["access_token"]
        status, steps = self.api("/api/onboarding")
        assert status == 200 and all(step["done"] for step in steps), steps
        reply = self.websocket({"type": "auth/long_lived_access_token", "client_name": "lector test",
                                "lifespan": 1})
        assert reply.get("success"), reply
        self.token = reply["result"]

    def api(self, path, method="GET", payload=None, raw=False):
        return http(self.url + path, method, payload, token=self.token, raw=raw)

    def websocket(self, *messages):
        """Sends each message (numbered) on an authenticated websocket: the last reply."""
        async def talk():
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(self.url + "/api/websocket") as ws:
                    assert (await ws.receive_json())["type"] == "auth_required"
                    await ws.send_json({"type": "auth", "access_token": self.token})
                    assert (await ws.receive_json())["type"] == "auth_ok"
                    reply = None
                    for number, message in enumerate(messages, 1):
                        await ws.send_json(dict(message, id=number))
                        while True:
                            reply = await ws.receive_json(timeout=30)
                            if reply.get("id") == number and reply.get("type") == "result":
                                break
                    return reply
        return asyncio.run(talk())

    def states(self):
        status, body = self.api("/api/states")
        assert status == 200, (status, body)
        return {state["entity_id"]: state for state in body}

    def state(self, entity):
        status, body = self.api("/api/states/" + entity)
        return body if status == 200 else None

    def service(self, domain, name, data):
        status, body = self.api("/api/services/%s/%s" % (domain, name), "POST", data)
        assert status == 200, (domain, name, status, body)


def http(url, method="GET", payload=None, form=None, token=None, timeout=30, raw=False):
    """(status, body): JSON decoded unless `raw`."""
    headers = {}
    data = None
    if payload is not None:
        data = json.dumps(payload).encode()
        headers["Content-Type"] = "application/json"
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if token:
        headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    if raw:
        return status, body
    try:
        return status, json.loads(body) if body else None
    except ValueError:
        return status, body.decode(errors="replace")


def lectord_devices():
    """lectord's DEVICES, by name."""
    with Client(os.path.join(WORK, "lector.sock")) as client:
        reply = client.request({"class": "DEVICES"})
    return {entry.get("name", entry["path"]): entry for entry in reply["devices"]}


def long_text_frame():
    """A replay folder with one 1280x720 frame of nine printed lines, over 255 characters."""
    lines = ["Lector reads the text of live camera", "frames and publishes it over MQTT to",
             "Home Assistant, which keeps only the", "first two hundred and fifty five",
             "characters of a sensor's state: the", "state says that it is cut, and the",
             "whole text and its lines are in the", "attributes of the text sensor, so an",
             "automation can still read all of it."]
    image = Image.new("L", (1280, 720), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 44)
    for number, line in enumerate(lines):
        draw.text((60, 40 + number * 72), line, font=font, fill=0)
    folder = os.path.join(WORK, "long")
    os.makedirs(folder)
    image.save(os.path.join(folder, "frame.png"))
    return folder, "\n".join(lines)


def entity_ids(camera):
    node = "lector_%s_%s" % (HOSTNAME, camera)
    return {"text": "sensor.%s_text" % node, "recognize_fps": "sensor.%s_recognize_fps" % node,
            "streaming": "binary_sensor.%s_streaming" % node, "snapshot": "image.%s_snapshot" % node,
            "rotation": "select.%s_rotation" % node, "take_snapshot": "button.%s_take_snapshot" % node,
            "live_text": "select.%s_live_text" % node, "code": "sensor.%s_code" % node,
            "code_seen": "event.%s_code_seen" % node}


def wait_state(ha, entity, predicate, what, timeout=SETTLE_SECONDS):
    return wait_for(lambda: (lambda s: s if s is not None and predicate(s) else None)(ha.state(entity)),
                    timeout, what, interval=0.5)


def mqtt_log_problems(text):
    """Lines of home-assistant.log at WARNING or ERROR (or worse) that mention mqtt or lector."""
    return [line for line in text.splitlines()
            if re.search(r" (WARNING|ERROR|CRITICAL) ", line) and re.search(r"mqtt|lector", line, re.I)]


WORLD = {}


def setup():
    broker = Broker().start()
    # Codes on: lector-mqtt announces the Code sensor and Code seen event only for a camera
    # whose DEVICES entry lists `codes` (proto_minor 15), and the demo's nine entities include them.
    lectord = Lectord("lectord-demo", "--demo", "--fps", "2", "--codes", "on").start()
    bridge = Process("lector-mqtt", [LECTOR_MQTT, "--socket", lectord.path, "--broker",
                                     "mqtt://127.0.0.1:%d" % broker.port, "--hostname", HOSTNAME,
                                     "--status-interval", "1", "--log-level", "debug"]).start()
    started = time.time()
    ha = HomeAssistant(broker.port).start()
    print("     Home Assistant answered after %.0f s (load %.1f)" % (time.time() - started, os.getloadavg()[0]),
          flush=True)
    ha.onboard()
    WORLD.update(broker=broker, lectord=lectord, bridge=bridge, ha=ha)


@test
def entities_of_the_camera():
    """The demo camera's nine entities, one device, their first states."""
    ha = WORLD["ha"]
    ids = entity_ids("demo")
    wait_for(lambda: set(ids.values()) <= set(ha.states()), SETTLE_SECONDS, "the nine entities", interval=0.5)
    states = ha.states()
    check("nine entities of the demo camera", set(ids.values()) <= set(states),
          sorted(e for e in states if "lector" in e))
    check("friendly names carry the device's name",
          states[ids["text"]]["attributes"].get("friendly_name") == "Lector %s demo Text" % HOSTNAME,
          states[ids["text"]]["attributes"])
    text = wait_state(ha, ids["text"], lambda s: s["state"] not in ("unknown", "unavailable", ""), "a text")
    check("text: state and attributes (text, lines)",
          text["attributes"].get("text") == text["state"] and text["attributes"].get("lines") == text["state"].splitlines()
          and text["attributes"].get("cut") is False, text)
    wait_state(ha, ids["streaming"], lambda s: s["state"] == "on", "streaming on")
    fps = wait_state(ha, ids["recognize_fps"], lambda s: re.fullmatch(r"[0-9.]+", s["state"]), "a recognize_fps")
    check("streaming on, recognize_fps a number", True, fps["state"])
    rotation = wait_state(ha, ids["rotation"], lambda s: s["state"] != "unknown", "the rotation from DEVICES")
    check("rotation select: lectord's rotation before any command",
          rotation["state"] == "0" and rotation["attributes"].get("options") == ["0", "90", "180", "270", "auto"],
          rotation)
    live = ha.state(ids["live_text"])
    check("live text select: settled", live["state"] == "settled" and live["attributes"].get("options") ==
          ["settled", "every frame"], live)
    check("button and image exist", ha.state(ids["take_snapshot"]) is not None and
          ha.state(ids["snapshot"])["state"] == "unknown", ha.state(ids["snapshot"]))
    devices = ha.websocket({"type": "config/device_registry/list"})
    device = [d for d in devices["result"] if ["mqtt", "lector_%s_demo" % HOSTNAME] in d["identifiers"]]
    check("one HA device: manufacturer Lector, lectord's release", len(device) == 1 and
          device[0]["manufacturer"] == "Lector" and device[0]["sw_version"], device)
    WORLD["device_id"] = device[0]["id"] if device else None


@test
def rotation_select_turns_lectord():
    """select.select_option → orientation/set → lectord's rotation; the select follows lectord's reply."""
    ha = WORLD["ha"]
    ids = entity_ids("demo")
    for option in ["90", "auto", "0"]:
        ha.service("select", "select_option", {"entity_id": ids["rotation"], "option": option})

        def applied():
            entry = lectord_devices()["demo"]
            if option == "auto":
                return entry["orientation"].get("auto") is True
            return entry.get("rotation") == int(option) and not entry["orientation"].get("auto")
        wait_for(applied, SETTLE_SECONDS, "lectord's rotation %s" % option, interval=0.2)
        wait_state(ha, ids["rotation"], lambda s: s["state"] == option, "the select to show %s" % option)
        entry = lectord_devices()["demo"]
        check("rotation %s: lectord has rotation %s%s, the select shows %s" % (
            option, entry.get("rotation"), " (auto)" if entry["orientation"].get("auto") else "", option), True)


@test
def snapshot_button_updates_the_image():
    """button.press → snapshot/get → SNAPSHOT → the image entity (a JPEG through HA's image proxy)."""
    ha = WORLD["ha"]
    ids = entity_ids("demo")
    before = ha.state(ids["snapshot"])["state"]
    images = []
    for press in range(2):
        ha.service("button", "press", {"entity_id": ids["take_snapshot"]})
        state = wait_state(ha, ids["snapshot"], lambda s: s["state"] not in ("unknown", before), "a new snapshot")
        before = state["state"]
        status, body = ha.api("/api/image_proxy/%s" % ids["snapshot"], raw=True)
        images.append(body)
        check("press %d: the image updated (%s), a JPEG of %d bytes" % (press + 1, state["state"], len(body)),
              status == 200 and body[:2] == b"\xff\xd8" and body[-2:] == b"\xff\xd9", (status, body[:40]))
        time.sleep(1.5)


@test
def live_text_select():
    """'every frame' then 'settled': the bridge follows, the select shows it."""
    ha = WORLD["ha"]
    ids = entity_ids("demo")
    for option in ["every frame", "settled"]:
        ha.service("select", "select_option", {"entity_id": ids["live_text"], "option": option})
        wait_state(ha, ids["live_text"], lambda s: s["state"] == option, "live text %s" % option)
        check("live text %s: the bridge says so" % option,
              "mode=%s" % option in WORLD["bridge"].logtext() or "mode=\"%s\"" % option in WORLD["bridge"].logtext(),
              WORLD["bridge"].logtext()[-600:])


@test
def lectord_stopped_then_another_camera():
    """lectord stopped: recognize_fps unknown, streaming off, no template warning. Then a
    lectord with another camera: the demo's entities go, the new camera's long text is cut."""
    ha = WORLD["ha"]
    ids = entity_ids("demo")
    WORLD["lectord"].stop()
    fps = wait_state(ha, ids["recognize_fps"], lambda s: s["state"] == "unknown", "recognize_fps unknown")
    streaming = wait_state(ha, ids["streaming"], lambda s: s["state"] == "off", "streaming off")
    check("lectord unreachable: recognize_fps unknown, streaming off", True, (fps["state"], streaming["state"]))
    folder, text = long_text_frame()
    WORLD["lectord"] = Lectord("lectord-long", "--replay", folder, "--fps", "1", "--loop", "--name", "sign").start()
    long_ids = entity_ids("sign")
    wait_for(lambda: not any(e in ha.states() for e in ids.values()), SETTLE_SECONDS, "the demo's entities removed",
             interval=0.5)
    check("the demo camera removed: its nine entities are gone", True)
    state = wait_state(ha, long_ids["text"], lambda s: len(s["attributes"].get("text", "")) > 255, "a long text")
    attributes = state["attributes"]
    print("     read %d characters (printed %d)" % (len(attributes["text"]), len(text)), flush=True)
    check("long text: state is 255 characters ending in …, attributes have the whole text and its lines",
          len(state["state"]) == 255 and state["state"].endswith("…") and attributes["cut"] is True
          and attributes["text"].startswith(state["state"][:-1]) and len(attributes["lines"]) >= 8
          and attributes["characters"] == len(attributes["text"]), state)


@test
def rule_reading_known_and_crop():
    """A gate camera with a rule, a known list and --evidence (4 colour codes in turn, 2
    listed): the rule's sensor shows the reading, its `known` binary sensor turns on for a
    listed code and off for another, and its image entity serves the crop lectord kept."""
    ha = WORLD["ha"]
    codes_dir = os.path.join(WORK, "codes")
    subprocess.run(["/usr/bin/python3", os.path.join(lectortest.ROOT, "scripts/make-code-frames.py"), codes_dir,
                    "--codes", "4", "--copies", "4"], check=True)
    codes = open(os.path.join(codes_dir, "codes.txt")).read().split()
    known = {codes[0]: "the van", codes[2]: "the post"}
    known_file = write(os.path.join(WORK, "known.txt"), "".join("%s\t%s\n" % item for item in known.items()))
    evidence = os.path.join(WORK, "evidence")
    conf = write(os.path.join(WORK, "gate.conf"), "[camera gate]\nreplay = %s\nloop = true\nfps = 3\n\n"
                 "[rule gate/code]\nmatch = ^[A-Z]{3}[0-9]{3}$\nknown = %s\n" % (os.path.join(codes_dir, "frames"), known_file))
    WORLD["lectord"].stop()
    WORLD["lectord"] = Lectord("lectord-gate", "--config", conf, "--evidence", evidence).start()
    node = "lector_%s_gate_rule_code" % HOSTNAME
    sensor, binary, image = "sensor." + node, "binary_sensor.%s_known" % node, "image.%s_crop" % node
    wait_for(lambda: {sensor, binary, image} <= set(ha.states()), SETTLE_SECONDS, "the rule's three entities", interval=0.5)
    check("the rule's sensor, known binary sensor and crop image exist", True)
    for listed in (True, False):
        def shown():
            reading, verdict = ha.state(sensor), ha.state(binary)
            if reading and verdict and reading["state"] in codes and (reading["state"] in known) == listed:
                expected = "on" if listed else "off"
                return (reading, verdict) if verdict["state"] == expected else None
            return None
        reading, verdict = wait_for(shown, 2 * SETTLE_SECONDS, "a %s code on the sensor" % ("listed" if listed else "unlisted"),
                                    interval=0.3)
        if listed:
            check("sensor shows a listed code (%s), known binary sensor on, its name in the attributes" % reading["state"],
                  verdict["state"] == "on" and reading["attributes"].get("known_name") == known[reading["state"]],
                  (reading, verdict))
        else:
            check("sensor shows an unlisted code (%s), known binary sensor off" % reading["state"], verdict["state"] == "off",
                  (reading, verdict))
    state = wait_state(ha, image, lambda s: s["state"] not in ("unknown", "unavailable"), "a crop on the image entity")
    status, body = ha.api("/api/image_proxy/%s" % image, raw=True)
    crops = [open(os.path.join(evidence, name), "rb").read() for name in os.listdir(evidence) if name.endswith(".crop.jpg")]
    path = os.path.join(WORK, "served-crop.jpg")
    with open(path, "wb") as f:
        f.write(body)
    components, chroma, width, height = lectortest.jpeg_colour(path)
    check("the image entity (%s) serves a crop lectord kept: a colour JPEG %dx%d" % (state["state"], width, height),
          status == 200 and body in crops and components == 3 and chroma > 40, (status, body[:40], len(crops), components))
    problems = [line for line in WORLD["bridge"].logtext().splitlines() if "crop" in line and line.startswith("warning")]
    check("lector-mqtt never failed to read a crop", not problems, problems[:5])


@test
def code_sensor_and_event():
    """A door camera reading QR codes (a code shown 3 s, away 2 s, in a loop; codes_repeat_after
    = 1) with a rule on codes: the Code sensor shows the code's text and format, the Code seen
    event fires on each appearance (qr), the rule's sensor shows the code with its format."""
    ha = WORLD["ha"]
    frames = os.path.join(WORK, "door")
    subprocess.run(["/usr/bin/python3", os.path.join(lectortest.ROOT, "scripts/make-code-scenes.py"), frames,
                    "--sequence", "qr:0,2,3", "--fps", "5", "--seed", "21"], check=True, capture_output=True, timeout=300)
    truth = json.load(open(os.path.join(frames, "truth.json")))
    conf = write(os.path.join(WORK, "door.conf"), "[camera door]\nreplay = %s\nloop = true\nfps = 5\ncodes = qr\n"
                 "codes_repeat_after = 1\n\n[rule door/scanned]\nsource = codes\nmatch = ^https://\n" % frames)
    WORLD["lectord"].stop()
    WORLD["lectord"] = Lectord("lectord-door", "--config", conf).start()
    ids = entity_ids("door")
    rule = "sensor.lector_%s_door_rule_scanned" % HOSTNAME
    wait_for(lambda: {ids["code"], ids["code_seen"], rule} <= set(ha.states()), SETTLE_SECONDS,
             "the door's Code sensor, Code seen event and rule sensor", interval=0.5)
    code = wait_state(ha, ids["code"], lambda s: s["state"] == truth["text"], "the code's text on the Code sensor",
                      timeout=2 * SETTLE_SECONDS)
    attributes = code["attributes"]
    check("Code sensor: %s, format %s, box and time in the attributes" % (code["state"], attributes.get("format")),
          attributes.get("format") == "qr" and attributes.get("text") == truth["text"]
          and attributes.get("box", {}).get("width", 0) > 0 and attributes.get("time"), attributes)
    seen = []

    def fired():
        state = ha.state(ids["code_seen"])
        if state and state["state"] not in ("unknown", "unavailable") and state["state"] not in [s["state"] for s in seen]:
            seen.append(state)
        return len(seen) >= 2
    wait_for(fired, 2 * SETTLE_SECONDS, "the Code seen event to fire twice", interval=0.3)
    check("Code seen fired on two appearances (%s), event type qr with the text" % ", ".join(s["state"] for s in seen),
          all(s["attributes"].get("event_type") == "qr" and s["attributes"].get("text") == truth["text"]
              and "qr" in s["attributes"].get("event_types", []) for s in seen), seen)
    reading = wait_state(ha, rule, lambda s: s["state"] == truth["text"], "the rule on codes' reading")
    check("the rule on codes' sensor shows the code, its format in the attributes",
          reading["attributes"].get("code") == "qr", reading)


@test
def log_free_of_mqtt_warnings():
    """home-assistant.log: no WARNING/ERROR line that mentions mqtt or lector."""
    time.sleep(2)
    log = WORLD["ha"].hass_log()
    problems = mqtt_log_problems(log)
    check("home-assistant.log (%d lines): no warning or error mentioning mqtt or lector" % len(log.splitlines()),
          not problems and "Template variable" not in log, "\n".join(problems[:10]))


def screenshot():
    """The new camera's device page, as HA's frontend shows it, in headless Chromium."""
    target = os.environ.get("LECTOR_HA_SCREENSHOT")
    if not target:
        return
    ha = WORLD["ha"]
    ids = entity_ids("sign")
    ha.service("button", "press", {"entity_id": ids["take_snapshot"]})
    wait_state(ha, ids["snapshot"], lambda s: s["state"] != "unknown", "the sign's snapshot")
    devices = ha.websocket({"type": "config/device_registry/list"})["result"]
    device = [d for d in devices if ["mqtt", "lector_%s_sign" % HOSTNAME] in d["identifiers"]]
    status, flow = http(ha.url + "/auth/login_flow", "POST", {
        "client_id": ha.client_id, "handler": ["homeassistant", None], "redirect_uri": ha.client_id + "?auth_callback=1"})
    status, done = http(ha.url + "/auth/login_flow/" + flow["flow_id"], "POST", {
        "client_id": ha.client_id, "username": "lector", "password": "lector-test"})
    state = base64.b64encode(json.dumps({"hassUrl": ha.url, "clientId": ha.client_id}).encode()).decode()
    url = "%s/config/devices/device/%s?auth_callback=1&code=%s&state=%s" % (
        ha.url, device[0]["id"], done["result"], urllib.parse.quote(state))
    subprocess.run(["chromium", "--headless=new", "--no-sandbox", "--hide-scrollbars", "--window-size=1280,1150",
                    "--virtual-time-budget=30000", "--screenshot=" + os.path.abspath(target), url],
                   capture_output=True, timeout=180)
    check("screenshot of the device page: %s" % target, os.path.exists(target))


def teardown():
    try:
        if "ha" in WORLD and suite.failed == 0:
            screenshot()
    finally:
        if "ha" in WORLD:
            WORLD["ha"].stop(signal.SIGTERM, timeout=30)
        stop_all(signal.SIGTERM)


if __name__ == "__main__":
    sys.exit(suite.main(setup=setup, teardown=teardown))
