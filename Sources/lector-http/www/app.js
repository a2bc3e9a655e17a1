// Lector's page: one card per camera with the live view and the recognized words'
// boxes, the text, tracks, the codes seen, counters and orientation controls. Everything comes from
// this origin: /api/events (Server-Sent Events carrying lectord's lines), /api/status,
// /api/snapshot.jpg, POST /api/orientation, and /api/history with /api/evidence.jpg
// (the last readings of lectord's rules with their crops, when lectord keeps a history).
'use strict';

const cameras = new Map();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const SVG = 'http://www.w3.org/2000/svg';
// ML Kit's guidance: about 16 px per character reads reliably.
const SMALL_TEXT_PX = 16;
// Nothing is asked of lectord while the page is hidden or left (kept in the
// back-forward cache): lectord stops a camera nobody watches.
let paused = false;
let events = null;

function part(card, name) { return card.querySelector('.' + name); }
function fixed(value, digits) { return typeof value === 'number' ? value.toFixed(digits) : '–'; }
function query(params) { return new URLSearchParams(params).toString(); }

function camera(path) {
  let cam = cameras.get(path);
  if (cam) return cam;
  const card = document.getElementById('camera-template').content.firstElementChild.cloneNode(true);
  cam = { path, card, texts: new Map(), shown: null, url: null, rotation: 0, mirror: false, tracks: new Map(), codes: [] };
  card.dataset.device = path;
  part(card, 'name').textContent = path;
  part(card, 'download').href = '/api/snapshot.jpg?' + query({ device: path, boxes: 1 });
  part(card, 'rotate').addEventListener('click', () => orient(cam, { rotation: (cam.rotation + 90) % 360, mirror: cam.mirror }));
  part(card, 'mirror').addEventListener('click', () => orient(cam, { rotation: cam.rotation, mirror: !cam.mirror }));
  const deviceOrientation = part(card, 'device-orientation');
  const position = part(card, 'camera-position');
  const sendDevice = () => {
    if (deviceOrientation.value) orient(cam, { device_orientation: deviceOrientation.value, camera_position: position.value });
  };
  deviceOrientation.addEventListener('change', sendDevice);
  position.addEventListener('change', sendDevice);
  document.getElementById('cameras').appendChild(card);
  cameras.set(path, cam);
  preview(cam);
  return cam;
}

async function orient(cam, change) {
  const response = await fetch('/api/orientation?' + query(Object.assign({ device: cam.path }, change)), { method: 'POST' });
  const reply = await response.json();
  if (reply.class === 'ORIENTATION') showOrientation(cam, reply);
  else part(cam.card, 'hint').textContent = reply.message || 'orientation refused';
}

function showOrientation(cam, info) {
  if (typeof info.rotation === 'number') cam.rotation = info.rotation;
  if (typeof info.mirror === 'boolean') cam.mirror = info.mirror;
  const name = info.orientation ? info.orientation.name + ' (' + info.orientation.exif + ')' : '–';
  part(cam.card, 'orientation').textContent = name + ', ' + cam.rotation + '°' + (cam.mirror ? ', mirrored' : '');
  part(cam.card, 'mirror').classList.toggle('on', cam.mirror);
  if (info.device_orientation) part(cam.card, 'device-orientation').value = info.device_orientation;
  if (info.camera_position) part(cam.card, 'camera-position').value = info.camera_position;
}

function onDevices(message) {
  for (const device of message.devices || []) {
    // Since proto_minor 5 `name` is the camera's name (TEXT's device), `card` the driver's.
    const cam = camera(device.name || device.path);
    const state = part(cam.card, 'state');
    state.textContent = device.state + (device.error ? ': ' + device.error : '');
    state.className = 'state badge ' + device.state;
    part(cam.card, 'name').textContent = device.name || device.path;
    part(cam.card, 'path').textContent = [device.name && device.name !== device.path ? device.path : '', device.card || ''].filter(Boolean).join(' · ');
    showOrientation(cam, device);
  }
}

function onText(message) {
  const cam = camera(message.device);
  cam.texts.set(message.seq, message);
  if (cam.texts.size > 64) cam.texts.delete(cam.texts.keys().next().value);
  part(cam.card, 'text').textContent = message.text || '';
  // The shown frame's own TEXT, or a later reading of the scene up to it, can arrive
  // after the frame (the preview is fetched as soon as it is captured): draw again.
  if (cam.shown && message.seq <= cam.shown.seq && message.seq > cam.shown.drawnSeq) drawBoxes(cam);
}

function onFrame(message) {
  const cam = camera(message.device);
  part(cam.card, 'latency').textContent = fixed(message.latency_ms, 0) + ' ms';
  part(cam.card, 'recognize-ms').textContent = fixed(message.recognize_ms, 0) + ' ms';
  part(cam.card, 'dropped').textContent = message.dropped;
  showFocus(cam, message);
}

// The focus figure (variance of the Laplacian of the luma) and the median character
// height, when lectord reports them.
function showFocus(cam, figures) {
  if (typeof figures.sharpness === 'number') part(cam.card, 'sharpness').textContent = fixed(figures.sharpness, 0);
  const hint = part(cam.card, 'hint');
  if (typeof figures.char_height === 'number') {
    part(cam.card, 'char-height').textContent = fixed(figures.char_height, 0) + ' px';
    if (figures.char_height < SMALL_TEXT_PX) {
      hint.textContent = 'Text is small: about ' + fixed(figures.char_height, 0) + ' px per character; ' +
        SMALL_TEXT_PX + ' px or more reads reliably. Move the camera closer or zoom in.';
      hint.hidden = false;
    } else hint.hidden = true;
  }
}

function onTrack(message) {
  const cam = camera(message.device);
  const id = message.track !== undefined ? message.track : message.id;
  const change = message.event || message.change || message.state;
  if (change === 'gone') cam.tracks.delete(id);
  else cam.tracks.set(id, message);
  const list = part(cam.card, 'tracks');
  list.replaceChildren();
  for (const track of cam.tracks.values()) {
    const item = document.createElement('li');
    item.textContent = track.text + (typeof track.confidence === 'number' ? '  (' + Math.round(track.confidence * 100) + '%)' : '');
    list.appendChild(item);
  }
  if (cam.tracks.size === 0) {
    const none = document.createElement('li');
    none.className = 'none';
    none.textContent = 'no tracks';
    list.appendChild(none);
  }
}

// The codes seen (a CODE per appearance), newest first: time, format, text.
const CODES_SHOWN = 5;
function onCode(message) {
  const cam = camera(message.device);
  cam.codes.unshift(message);
  cam.codes.length = Math.min(cam.codes.length, CODES_SHOWN);
  const list = part(cam.card, 'codes');
  list.replaceChildren();
  for (const code of cam.codes) {
    const item = document.createElement('li');
    const format = document.createElement('span');
    format.className = 'format';
    format.textContent = (code.time || '').slice(11, 19) + ' ' + code.format + (code.zone ? ' in ' + code.zone : '');
    const text = document.createElement('span');
    text.className = 'code-text';
    text.textContent = code.text;
    item.append(format, text);
    list.appendChild(item);
  }
}

// Words (or lines, at a coarser level) of a TEXT, each with its box and corners.
function words(text) {
  const out = [];
  for (const block of text.blocks || []) {
    for (const line of block.lines || []) {
      if (line.words && line.words.length) out.push(...line.words);
      else out.push(line);
    }
  }
  return out;
}

// Draws the boxes of the TEXT that the shown frame produced, in that frame's pixels:
// `box` for an upright snapshot, `corners` for a captured-frame preview.
function drawBoxes(cam) {
  const shown = cam.shown;
  const svg = part(cam.card, 'boxes');
  svg.setAttribute('viewBox', '0 0 ' + shown.width + ' ' + shown.height);
  // A frame the change gate skipped (nothing new: SNAPSHOT color follows the newest
  // captured frame) has no TEXT of its own: the scene's latest reading before it holds.
  let text = cam.texts.get(shown.seq);
  if (!text) {
    for (const [seq, candidate] of cam.texts) if (seq <= shown.seq && (!text || seq > text.seq)) text = candidate;
  }
  svg.replaceChildren();
  svg.dataset.seq = shown.seq;
  delete svg.dataset.textSeq;
  if (!text) return;
  shown.drawnSeq = text.seq;
  svg.dataset.textSeq = text.seq;
  for (const word of words(text)) {
    let points;
    if (shown.space === 'captured' && word.corners) points = word.corners;
    else {
      const b = word.box;
      points = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]];
    }
    const polygon = document.createElementNS(SVG, 'polygon');
    polygon.setAttribute('points', points.map((p) => p[0] + ',' + p[1]).join(' '));
    polygon.dataset.text = word.text;
    const title = document.createElementNS(SVG, 'title');
    title.textContent = word.text + (typeof word.confidence === 'number' ? ' ' + Math.round(word.confidence * 100) + '%' : '');
    polygon.appendChild(title);
    svg.appendChild(polygon);
  }
}

// The live view: the frame behind the latest TEXT, fetched at most at the bridge's
// preview rate, shown with its own boxes: in the camera's colour and as captured when
// lectord keeps the frame (boxes from `corners`), else gray and upright (from `box`).
async function preview(cam) {
  const img = part(cam.card, 'frame');
  let interval = 200;
  for (;;) {
    while (paused) await sleep(250);
    const started = performance.now();
    try {
      const response = await fetch('/api/snapshot.jpg?' + query({ device: cam.path, color: 1 }), { cache: 'no-store' });
      const fps = Number(response.headers.get('X-Lector-Preview-Fps'));
      if (fps > 0) interval = 1000 / fps;
      const seq = Number(response.headers.get('X-Lector-Seq'));
      if (response.ok && (!cam.shown || cam.shown.seq !== seq)) {
        const blob = await response.blob();
        const url = URL.createObjectURL(blob);
        await new Promise((resolve) => { img.onload = resolve; img.onerror = resolve; img.src = url; });
        if (cam.url) URL.revokeObjectURL(cam.url);
        cam.url = url;
        cam.shown = {
          seq, drawnSeq: -1,
          width: Number(response.headers.get('X-Lector-Width')) || img.naturalWidth,
          height: Number(response.headers.get('X-Lector-Height')) || img.naturalHeight,
          space: response.headers.get('X-Lector-Space') || 'upright',
        };
        part(cam.card, 'view').dataset.seq = seq;
        part(cam.card, 'view').dataset.space = cam.shown.space;
        drawBoxes(cam);
      } else {
        await response.arrayBuffer();
      }
    } catch (error) {
      interval = 1000;
    }
    await sleep(Math.max(20, interval - (performance.now() - started)));
  }
}

async function pollStatus() {
  for (;;) {
    while (paused) await sleep(250);
    try {
      const response = await fetch('/api/status', { cache: 'no-store' });
      const status = await response.json();
      if (status.class === 'STATUS') {
        document.getElementById('summary').textContent = 'lectord ' + status.release + ', up ' +
          Math.round(status.uptime) + ' s, ' + status.clients + ' clients';
        for (const device of status.devices || []) {
          const cam = camera(device.name || device.path);
          part(cam.card, 'capture-fps').textContent = fixed(device.capture_fps, 1) + ' fps (' + device.captured + ')';
          part(cam.card, 'recognize-fps').textContent = fixed(device.recognize_fps, 1) + ' fps (' + device.recognized + ')';
          part(cam.card, 'dropped').textContent = device.dropped;
          if (device.latency_ms) part(cam.card, 'latency').textContent = fixed(device.latency_ms.p50, 0) + ' ms (p50)';
          showFocus(cam, device);
        }
      }
      // Orientation changed by another client is not pushed: read it with the counters.
      const devices = await (await fetch('/api/devices', { cache: 'no-store' })).json();
      if (devices.class === 'DEVICES') onDevices(devices);
    } catch (error) {
      // The bridge or lectord is away; the badge says so, try again.
    }
    await sleep(2000);
  }
}

// The last MATCHes lectord kept (HISTORY), newest first, each with its crop.
async function pollReadings() {
  const section = document.getElementById('readings');
  const body = section.querySelector('tbody');
  let shown = '';
  for (;;) {
    while (paused) await sleep(250);
    try {
      const response = await fetch('/api/history?limit=20', { cache: 'no-store' });
      // 204: lectord keeps no history; the section stays hidden, asked again now and then.
      section.hidden = response.status !== 200;
      if (response.status === 204) {
        await sleep(30000);
        continue;
      }
      const history = await response.json();
      const key = history.class === 'HISTORY' ? JSON.stringify(history.matches.map((m) => [m.device, m.seq, m.time, m.rule])) : '';
      if (key !== shown) {
        shown = key;
        body.replaceChildren(...(history.matches || []).map(readingRow));
      }
    } catch (error) {
      // The bridge or lectord is away; try again.
    }
    await sleep(3000);
  }
}

function readingRow(match) {
  const row = document.createElement('tr');
  row.className = match.rejected ? 'reading rejected' : 'reading';
  const known = match.known ? (match.known.name || match.known.text) : '';
  const cells = [match.time.replace('T', ' ').replace('Z', ''), match.device + (match.zone ? '/' + match.zone : ''),
    match.rule, match.text + (match.rejected ? ' (rejected: ' + match.rejected + ')' : ''), known];
  for (const value of cells) {
    const cell = document.createElement('td');
    cell.textContent = value;
    row.appendChild(cell);
  }
  const crop = document.createElement('td');
  if (match.evidence) {
    const image = document.createElement('img');
    image.className = 'crop';
    image.alt = match.text;
    image.src = '/api/evidence.jpg?' + query({ path: match.evidence.crop });
    const link = document.createElement('a');
    link.href = '/api/evidence.jpg?' + query({ path: match.evidence.frame });
    link.appendChild(image);
    crop.appendChild(link);
  }
  row.appendChild(crop);
  return row;
}

function connect() {
  const link = document.getElementById('link');
  events = new EventSource('/api/events');
  events.onopen = () => { link.textContent = 'live'; link.className = 'badge live'; };
  events.onerror = () => { link.textContent = 'reconnecting…'; link.className = 'badge down'; };
  events.onmessage = (event) => {
    const message = JSON.parse(event.data);
    switch (message.class) {
      case 'DEVICES': onDevices(message); break;
      case 'TEXT': onText(message); break;
      case 'FRAME': onFrame(message); break;
      case 'TRACK': onTrack(message); break;
      case 'CODE': onCode(message); break;
      default: break;
    }
  };
}

function pause() {
  paused = true;
  if (events) events.close();
  events = null;
}

function resume() {
  paused = false;
  if (!events) connect();
}

window.addEventListener('pagehide', pause);
window.addEventListener('pageshow', (event) => { if (event.persisted) resume(); });
document.addEventListener('visibilitychange', () => { if (document.hidden) pause(); else resume(); });
connect();
pollStatus();
pollReadings();
