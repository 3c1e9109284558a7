// test/webmap/browser.cjs — the page of slimetool map-server in headless
// Chromium (Debian's, driven by playwright-core): the picker lists every
// world, tiles load, the screenshot's pixels are the tile PNGs' colours
// (at zoom 0 and in an overview), another world can be picked, and the
// block under the cursor is shown.
//
//   node browser.cjs PLAYWRIGHT_CORE_DIR URL SCREENSHOT.png PROFILE_DIR KEY1 KEY2
//
// Prints "ok: ..." or "FAILED: ..." per check; exits 1 on any failure.
'use strict';

const [modDir, url, shotPath, profile, key1, key2] = process.argv.slice(2);
const { chromium } = require(modDir);

let failed = 0;
function check(ok, what) {
  console.log((ok ? 'ok:     ' : 'FAILED: ') + what);
  if (!ok) failed++;
}

// Wait until every tile of the page has loaded (at least one).
async function tilesLoaded(page) {
  await page.waitForFunction(() => {
    const t = document.querySelectorAll('#map img.leaflet-tile');
    return t.length > 0 && [...t].every((i) => i.classList.contains('leaflet-tile-loaded') && i.complete);
  }, null, { timeout: 30000 });
  await page.waitForTimeout(400);  // the fade-in of the last tiles
}

// Compare the screenshot's pixels with the tile PNGs under them (every 3rd
// pixel each way, opaque tile pixels, inside the map and off its controls).
async function compare(page, shot) {
  return page.evaluate(async (b64) => {
    const decode = async (src) => {
      const bmp = await createImageBitmap(await (await fetch(src)).blob());
      const g = new OffscreenCanvas(bmp.width, bmp.height).getContext('2d');
      g.drawImage(bmp, 0, 0);
      return { w: bmp.width, h: bmp.height, d: g.getImageData(0, 0, bmp.width, bmp.height).data };
    };
    const S = await decode('data:image/png;base64,' + b64);
    const m = document.getElementById('map').getBoundingClientRect();
    const ctl = document.querySelector('.leaflet-control-zoom').getBoundingClientRect();
    const r = { tiles: 0, compared: 0, same: 0, first: null };
    for (const img of document.querySelectorAll('#map img.leaflet-tile-loaded')) {
      const b = img.getBoundingClientRect();
      const T = await decode(img.src);
      r.tiles++;
      for (let j = 0; j < T.h; j += 3) {
        for (let i = 0; i < T.w; i += 3) {
          const x = Math.round(b.left) + i, y = Math.round(b.top) + j;
          if (x < m.left || y < m.top || x >= m.right || y >= m.bottom || x >= S.w || y >= S.h) continue;
          if (x >= ctl.left - 2 && x < ctl.right + 2 && y >= ctl.top - 2 && y < ctl.bottom + 2) continue;
          const t = (j * T.w + i) * 4, s = (y * S.w + x) * 4;
          if (T.d[t + 3] !== 255) continue;
          r.compared++;
          const same = Math.abs(S.d[s] - T.d[t]) <= 2 && Math.abs(S.d[s + 1] - T.d[t + 1]) <= 2 &&
                       Math.abs(S.d[s + 2] - T.d[t + 2]) <= 2;
          if (same) r.same++;
          else if (!r.first) r.first = [img.src, i, j, [...T.d.slice(t, t + 3)], [...S.d.slice(s, s + 3)]];
        }
      }
    }
    return r;
  }, shot.toString('base64'));
}

(async () => {
  // a fresh profile directory: playwright passes it to Chromium as --user-data-dir
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 720 }, deviceScaleFactor: 1,
  });
  const page = browser.pages()[0] || await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const notLocal = [];
  page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:')) notLocal.push(r.url()); });
  try {
    await page.goto(url + '#' + encodeURIComponent(key1), { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelectorAll('#world option').length > 0, null, { timeout: 30000 });
    const listed = await (await page.request.get(url + 'api/worlds')).json();
    const options = await page.$$eval('#world option', (o) => o.map((e) => e.value));
    check(options.length === listed.worlds.length && listed.worlds.every((w) => options.includes(w.key)),
          'the picker lists every world of /api/worlds (' + options.length + ')');
    await tilesLoaded(page);
    check(await page.$eval('#world', (s) => s.value) === key1, 'the world of the address is shown: ' + key1);
    const zoom = await page.evaluate(() => map.getZoom());
    const box = await page.$eval('#map', (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; });
    await page.mouse.move(Math.round(box[0] + box[2] / 2), Math.round(box[1] + box[3] / 2));
    let shot = await page.screenshot({ path: shotPath });
    let r = await compare(page, shot);
    check(r.tiles > 0 && r.compared > 5000 && r.same >= 0.99 * r.compared,
          `zoom ${zoom}: ${r.tiles} tiles, ${r.same} of ${r.compared} sampled pixels are the tile PNGs' colours` +
          (r.first ? ' (first differing: ' + JSON.stringify(r.first) + ')' : ''));

    // an overview zoom draws and matches too
    await page.evaluate(() => map.setZoom(-2, { animate: false }));
    await tilesLoaded(page);
    shot = await page.screenshot();
    r = await compare(page, shot);
    check(r.tiles > 0 && r.compared > 500 && r.same >= 0.99 * r.compared,
          `zoom -2: ${r.tiles} tiles, ${r.same} of ${r.compared} sampled pixels are the tile PNGs' colours`);

    // the block under the cursor
    const cx = Math.round(box[2] / 2) + 13, cy = Math.round(box[3] / 2) + 7;
    await page.mouse.move(Math.round(box[0]) + cx, Math.round(box[1]) + cy);
    const expect = await page.evaluate(([x, y]) => {
      const ll = map.containerPointToLatLng([x, y]);
      return 'x ' + Math.floor(ll.lng) + ', z ' + Math.floor(-ll.lat);
    }, [cx, cy]);
    const shown = await page.$eval('#coords', (e) => e.textContent);
    check(shown.startsWith(expect), `coordinates under the cursor: "${shown}" (expected ${expect})`);

    // picking another world loads its tiles
    await page.selectOption('#world', key2);
    await tilesLoaded(page);
    const srcs = await page.$$eval('#map img.leaflet-tile-loaded', (t) => t.map((i) => i.src));
    check(srcs.length > 0 && srcs.every((s) => s.includes('/tiles/' + encodeURIComponent(key2) + '/')),
          `picking ${key2} shows its tiles (${srcs.length})`);
    shot = await page.screenshot();
    r = await compare(page, shot);
    check(r.compared > 500 && r.same >= 0.99 * r.compared, `${key2}: ${r.same} of ${r.compared} sampled pixels match`);
  } catch (e) {
    check(false, 'the page: ' + e);
  }
  check(errors.length === 0, 'no script or console errors' + (errors.length ? ': ' + errors.join(' | ') : ''));
  check(notLocal.length === 0, 'nothing fetched from anywhere but the server' + (notLocal.length ? ': ' + notLocal.join(' ') : ''));
  await browser.close();
  process.exit(failed ? 1 : 0);
})();
