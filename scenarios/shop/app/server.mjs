// A small shop to run the example suite against: sign-in with a cookie, a product list with a client-side
// search, a cart kept per session on the server (JSON API), removal behind a confirm dialog, a CSV export
// download, and a help page that opens in a new tab. No dependencies: `node server.mjs` (PORT, default 4180).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

const port = Number(process.env.PORT ?? 4180);
const PRODUCTS = [
  { id: 1, name: 'Espresso cup', price: 8 },
  { id: 2, name: 'Pour-over kettle', price: 42 },
  { id: 3, name: 'Coffee grinder', price: 95 },
  { id: 4, name: 'Paper filters', price: 5 },
];
/** session id → { email, cart: Map<product id, quantity> } */
const sessions = new Map();

const page = (title, body, session) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Shop</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; }
  header { display: flex; gap: 16px; align-items: center; padding: 12px 24px; background: #1d3557; }
  header a { color: #fff; }
  .logo { width: 32px; height: 32px; border-radius: 50%; background: conic-gradient(#e63946 0 25%, #f1faee 0 50%, #a8dadc 0 75%, #457b9d 0); }
  main { padding: 24px; max-width: 720px; }
  li { margin: 8px 0; }
  button { font: inherit; }
</style></head><body>
<header><div class="logo" data-testid="logo" role="img" aria-label="Shop logo"></div>
<nav aria-label="Main"><a href="/">Home</a> <a href="/products">Products</a> <a href="/cart">Cart (${count(session)})</a></nav>
${session ? `<span style="color:#fff">${session.email}</span>` : '<a href="/login">Sign in</a>'}
<a href="/help" target="_blank">Help</a></header>
<main>${body}</main></body></html>`;

function count(session) {
  return session ? [...session.cart.values()].reduce((a, b) => a + b, 0) : 0;
}

function sessionOf(req) {
  const id = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  return id ? sessions.get(id) : undefined;
}

function readBody(req) {
  return new Promise((resolve) => {
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => resolve(data));
  });
}

function send(res, status, type, body, headers = {}) {
  res.writeHead(status, { 'content-type': type, ...headers }).end(body);
}

const json = (res, status, value) => send(res, status, 'application/json', JSON.stringify(value));

function cartLines(session) {
  return [...session.cart].map(([id, quantity]) => {
    const p = PRODUCTS.find((x) => x.id === id);
    return { id, name: p.name, price: p.price, quantity };
  });
}

createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const session = sessionOf(req);
  const html = (title, body, status = 200) => send(res, status, 'text/html; charset=utf-8', page(title, body, session));

  if (req.method === 'GET' && url.pathname === '/') {
    return html('Home', '<h1>Welcome to the shop</h1><p>Good things for good coffee.</p><p><a href="/products">See the products</a></p>');
  }
  if (req.method === 'GET' && url.pathname === '/login') {
    return html('Sign in', `<h1>Sign in</h1><form method="post" action="/login">
<p><label>Email <input name="email" type="email" required></label></p>
<p><label>Password <input name="password" type="password" required></label></p>
<p><button>Sign in</button></p>${url.searchParams.has('failed') ? '<p role="alert">Wrong email or password</p>' : ''}</form>`);
  }
  if (req.method === 'POST' && url.pathname === '/login') {
    const form = new URLSearchParams(await readBody(req));
    if (form.get('password') !== 'espresso') return send(res, 303, 'text/plain', '', { location: '/login?failed' });
    const id = randomUUID();
    sessions.set(id, { email: form.get('email'), cart: new Map() });
    return send(res, 303, 'text/plain', '', { location: '/products', 'set-cookie': `sid=${id}; Path=/; HttpOnly; SameSite=Lax` });
  }
  if (req.method === 'GET' && url.pathname === '/products') {
    const items = PRODUCTS.map((p) => `<li data-testid="product-${p.id}"><span class="name">${p.name}</span> — $${p.price}
 <button data-id="${p.id}">Add to cart</button></li>`).join('');
    return html('Products', `<h1>Products</h1><p><label>Search <input id="search" type="search"></label></p>
<p role="status" id="shown">${PRODUCTS.length} products</p><ul id="list">${items}</ul>
<script>
  const search = document.getElementById('search');
  search.addEventListener('input', () => {
    let shown = 0;
    for (const li of document.querySelectorAll('#list li')) {
      const hit = li.querySelector('.name').textContent.toLowerCase().includes(search.value.toLowerCase());
      li.hidden = !hit;
      if (hit) shown++;
    }
    document.getElementById('shown').textContent = shown + (shown === 1 ? ' product' : ' products');
  });
  for (const b of document.querySelectorAll('button[data-id]')) {
    b.addEventListener('click', async () => {
      const res = await fetch('/api/cart', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: Number(b.dataset.id) }) });
      if (res.status === 401) return (location.href = '/login');
      const cart = await res.json();
      document.querySelector('nav a[href="/cart"]').textContent = 'Cart (' + cart.count + ')';
    });
  }
</script>`);
  }
  if (url.pathname === '/api/products') return json(res, 200, { products: PRODUCTS });
  if (url.pathname === '/api/cart') {
    if (!session) return json(res, 401, { error: 'sign in first' });
    if (req.method === 'POST') {
      const { id } = JSON.parse((await readBody(req)) || '{}');
      if (!PRODUCTS.some((p) => p.id === id)) return json(res, 400, { error: `no product ${id}` });
      session.cart.set(id, (session.cart.get(id) ?? 0) + 1);
    } else if (req.method === 'DELETE') {
      session.cart.delete(Number(url.searchParams.get('id')));
    }
    return json(res, 200, { count: count(session), lines: cartLines(session) });
  }
  if (req.method === 'GET' && url.pathname === '/cart') {
    if (!session) return send(res, 303, 'text/plain', '', { location: '/login' });
    const lines = cartLines(session);
    const total = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);
    const rows = lines.map((l) => `<li data-testid="line-${l.id}">${l.quantity} × ${l.name} <button data-id="${l.id}">Remove</button></li>`).join('');
    return html('Cart', `<h1>Your cart</h1>${lines.length ? `<ul>${rows}</ul>` : '<p>Your cart is empty.</p>'}
<p data-testid="total">Total: $${total}</p><p><a href="/cart.csv">Export CSV</a></p>
<script>
  for (const b of document.querySelectorAll('button[data-id]')) {
    b.addEventListener('click', async () => {
      if (!confirm('Remove this item?')) return;
      await fetch('/api/cart?id=' + b.dataset.id, { method: 'DELETE' });
      location.reload();
    });
  }
</script>`);
  }
  if (req.method === 'GET' && url.pathname === '/cart.csv') {
    if (!session) return send(res, 401, 'text/plain', 'sign in first');
    const csv = ['product,quantity,price', ...cartLines(session).map((l) => `${l.name},${l.quantity},${l.price}`)].join('\n') + '\n';
    return send(res, 200, 'text/csv', csv, { 'content-disposition': 'attachment; filename="cart.csv"' });
  }
  if (req.method === 'GET' && url.pathname === '/help') {
    return html('Help', '<h1>Help</h1><p>Questions? Write to help@shop.test.</p>');
  }
  html('Not found', '<h1>Not found</h1>', 404);
}).listen(port, '127.0.0.1', () => console.log(`shop listening on ${port}`));
