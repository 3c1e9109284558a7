// The page of slimetool map-server: a Leaflet map of one world at a time
// (CRS.Simple, one unit a block: lng = x, lat = -z), a world picker fed by
// /api/worlds, and the block under the cursor.
'use strict';

const map = L.map('map', { crs: L.CRS.Simple, minZoom: -4, maxZoom: 4, zoomSnap: 1, attributionControl: false });
const picker = document.getElementById('world');
const info = document.getElementById('info');
const coords = document.getElementById('coords');
const worlds = new Map();
let layer = null;

// Leaflet bounds of a world's blocks (bounds are inclusive block coordinates).
function worldBounds(b) {
  return L.latLngBounds([-(b.max_z + 1), b.min_x], [-b.min_z, b.max_x + 1]);
}

// Show one world: its tiles, its bounds, the picker and the address bar.
function show(key) {
  const w = worlds.get(key);
  if (!w) return;
  if (layer) map.removeLayer(layer);
  const url = '/tiles/' + encodeURIComponent(key) + '/{z}/{x}/{y}.png';
  layer = L.tileLayer(url, { tileSize: 256, minZoom: -4, maxZoom: 4, noWrap: true,
                             bounds: w.bounds ? worldBounds(w.bounds).pad(0.01) : undefined });
  layer.addTo(map);
  picker.value = key;
  info.textContent = w.chunks + ' chunks' + (w.bounds ?
    ', x ' + w.bounds.min_x + '..' + w.bounds.max_x + ', z ' + w.bounds.min_z + '..' + w.bounds.max_z : '');
  if (w.bounds) map.fitBounds(worldBounds(w.bounds), { animate: false });
  else map.setView([0, 0], 0, { animate: false });
  history.replaceState(null, '', '#' + encodeURIComponent(key));
}

// Every page of /api/worlds into the picker (at most 20 pages of 1000).
async function loadWorlds() {
  let after = null;
  for (let page = 0; page < 20; page++) {
    const r = await fetch('/api/worlds' + (after === null ? '' : '?after=' + encodeURIComponent(after)));
    if (!r.ok) throw new Error('/api/worlds: ' + r.status);
    const body = await r.json();
    for (const w of body.worlds) {
      worlds.set(w.key, w);
      const o = document.createElement('option');
      o.value = w.key;
      o.textContent = w.key;
      picker.appendChild(o);
    }
    if (body.next === null) break;
    after = body.next;
  }
}

picker.addEventListener('change', () => show(picker.value));
map.on('mousemove', (e) => {
  const x = Math.floor(e.latlng.lng), z = Math.floor(-e.latlng.lat);
  coords.textContent = 'x ' + x + ', z ' + z + ' (chunk ' + Math.floor(x / 16) + ', ' + Math.floor(z / 16) + ')';
});

loadWorlds().then(() => {
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (worlds.size) show(worlds.has(wanted) ? wanted : worlds.keys().next().value);
  else info.textContent = 'no worlds in this table';
}).catch((e) => { info.textContent = String(e); });
