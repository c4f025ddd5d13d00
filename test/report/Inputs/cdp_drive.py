#!/usr/bin/env python3
"""Drives the HTML report in headless Chromium through the DevTools protocol.

Usage: cdp_drive.py REPORT.html OUTDIR

Starts `chromium --headless --remote-debugging-port=0`, connects to the
page over a WebSocket (a minimal client on the standard library: Debian 12
has no python3-websocket here) and, step by step, acts on the page as a
user would and prints what the DOM then holds, for FileCheck:

  1. sorts the function table by clicking its "taken" header (twice:
     descending, then ascending) and prints the column as shown;
  2. types the hottest function's name into that table's filter box and
     prints the rows left visible, then clicks its name to open its
     annotated disassembly (screenshot 6);
  3. clicks that function's box in the flame graph and prints the boxes
     drawn (zoomed: the box spans the whole width, the other roots are
     gone);
  4. searches the flame graph for it and prints the share matched.

After each step a screenshot is saved as OUTDIR/step-N.png (checked to be
a PNG of the window's size). Every value printed is read back from the
DOM, and the orders are checked here, independently of the page's script.
"""
import base64
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

html, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
W, H = 1200, 1000


class WebSocket:
    def __init__(self, url):
        m = re.match(r'ws://([^:/]+):(\d+)(/.*)', url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), 30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(('GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n'
                           'Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n'
                           'Sec-WebSocket-Version: 13\r\n\r\n'
                           % (m.group(3), m.group(1), m.group(2), key)).encode())
        head = b''
        while b'\r\n\r\n' not in head:
            head += self.sock.recv(1)
        assert b' 101 ' in head.split(b'\r\n')[0], head

    def send(self, text):
        data = text.encode()
        n = len(data)
        if n < 126:
            hdr = struct.pack('!BB', 0x81, 0x80 | n)
        elif n < 65536:
            hdr = struct.pack('!BBH', 0x81, 0x80 | 126, n)
        else:
            hdr = struct.pack('!BBQ', 0x81, 0x80 | 127, n)
        mask = os.urandom(4)
        self.sock.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exact(self, n):
        buf = b''
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError('DevTools connection closed')
            buf += chunk
        return buf

    def recv(self):
        msg = b''
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack('!H', self._exact(2))[0]
            elif n == 127:
                n = struct.unpack('!Q', self._exact(8))[0]
            payload = self._exact(n)
            if b0 & 0x0f in (0x8,):
                raise EOFError('closed')
            if b0 & 0x0f in (0x9, 0xa):
                continue
            msg += payload
            if b0 & 0x80:
                return msg.decode()


profile = tempfile.mkdtemp(prefix='chromium-')
proc = subprocess.Popen(
    ['chromium', '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
     '--remote-debugging-port=0', '--user-data-dir=' + profile,
     '--window-size=%d,%d' % (W, H), 'about:blank'],
    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    env=dict(os.environ, HOME=profile))
try:
    port = None
    deadline = time.time() + 60
    while port is None and time.time() < deadline:
        line = proc.stderr.readline().decode()
        m = re.search(r'DevTools listening on ws://[^:]+:(\d+)/', line)
        if m:
            port = int(m.group(1))
        elif not line and proc.poll() is not None:
            sys.exit('chromium exited before listening')
    targets = json.load(urllib.request.urlopen('http://127.0.0.1:%d/json/list' % port))
    page = [t for t in targets if t['type'] == 'page'][0]
    ws = WebSocket(page['webSocketDebuggerUrl'])
    ids = [0]

    def call(method, **params):
        ids[0] += 1
        ws.send(json.dumps({'id': ids[0], 'method': method, 'params': params}))
        while True:
            r = json.loads(ws.recv())
            if r.get('id') == ids[0]:
                if 'error' in r:
                    sys.exit('%s: %s' % (method, r['error']))
                return r['result']

    def js(expr):
        r = call('Runtime.evaluate', expression=expr, returnByValue=True,
                 awaitPromise=True)
        if 'exceptionDetails' in r:
            sys.exit('script error: %s' % r['exceptionDetails'])
        return r['result'].get('value')

    def shot(n):
        png = base64.b64decode(call('Page.captureScreenshot', format='png')['data'])
        assert png[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
        w, h = struct.unpack('>II', png[16:24])
        path = os.path.join(outdir, 'step-%d.png' % n)
        open(path, 'wb').write(png)
        print('screenshot %d: %dx%d' % (n, w, h))

    call('Page.enable')
    call('Page.navigate', url='file://' + html)
    for _ in range(200):
        if js('document.readyState') == 'complete' and js('!!document.getElementById("t-functions")'):
            break
        time.sleep(0.05)
    shot(0)

    def column(table, col):
        return js('''Array.from(document.querySelectorAll('#%s tr')).slice(1)
            .filter(r => r.style.display !== 'none' && !r.classList.contains('none'))
            .map(r => r.cells[%d].textContent)''' % (table, col))

    names = column('t-functions', 7)
    hottest = names[0]
    print('functions before sorting:', ' '.join(names))
    # 1. Sort by taken (column 2): a click sorts descending, another ascending.
    for want in ('desc', 'asc'):
        js("document.querySelectorAll('#t-functions th')[2].click()")
        taken = [int(x) for x in column('t-functions', 2)]
        ok = taken == sorted(taken, reverse=(want == 'desc'))
        print('sorted by taken %s: %s, header %s, %s' % (
            want, ' '.join(map(str, taken)),
            js("document.querySelectorAll('#t-functions th')[2].getAttribute('data-sort')"),
            'in order' if ok else 'OUT OF ORDER'))
        shot(1 if want == 'desc' else 2)
    # 2. Filter the table by the hottest function's name.
    js('''(() => { const b = document.querySelector('#t-functions').previousElementSibling;
        b.value = %s; b.dispatchEvent(new Event('input')); })()''' % json.dumps(hottest))
    left = column('t-functions', 7)
    print('filtered by %s: %d rows: %s; all match: %s' % (
        hottest, len(left), ' '.join(left), all(hottest in n for n in left)))
    shot(3)
    # 2b. Open the hottest function's annotated disassembly from its link.
    js('''(() => { const a = Array.from(document.querySelectorAll('#t-functions a.annotate'))
        .find(a => a.textContent === %s); a.click(); })()''' % json.dumps(hottest))
    ann = js('''(() => { const d = document.querySelector('details.annotated[open]');
        if (!d) return null;
        const rows = Array.from(d.querySelectorAll('tr')).slice(1).filter(r => !r.classList.contains('src'));
        return [d.getAttribute('data-function'), rows.length,
                rows.filter(r => r.cells[4].textContent !== '').length,
                d.getBoundingClientRect().height > 0]; })()''')
    print('annotated open: %s, %d instructions, %d branches with counts, visible %s' % tuple(ann))
    shot(6)
    # 3. Zoom the flame graph to the hottest function's box.
    frames = js("Array.from(document.querySelectorAll('#flame .frame')).map(b => b.textContent)")
    print('flame boxes before zoom: %d' % len(frames))
    js('''Array.from(document.querySelectorAll('#flame .frame'))
        .find(b => b.textContent === %s).click()''' % json.dumps(hottest))
    boxes = js('''Array.from(document.querySelectorAll('#flame .frame'))
        .map(b => [b.textContent, b.style.width, b.style.top])''')
    full = [b for b in boxes if b[1] == '100%']
    print('zoomed: %d boxes; full width: %s' % (
        len(boxes), ' '.join('%s@%s' % (b[0], b[2]) for b in full)))
    print('flame container scrolled into view')
    js("document.getElementById('flame').scrollIntoView()")
    shot(4)
    # 4. Search the flame graph for the hottest function.
    js('''(() => { const s = document.getElementById('flame-search');
        s.value = %s; s.dispatchEvent(new Event('input')); })()''' % json.dumps(hottest))
    print('search: %s; marked boxes: %d' % (
        js("document.getElementById('flame-matched').textContent"),
        js("document.querySelectorAll('#flame .frame.match').length")))
    shot(5)
    ws.send(json.dumps({'id': 9999, 'method': 'Browser.close'}))
finally:
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
