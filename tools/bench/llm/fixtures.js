'use strict';
// Fixture pages with known answers for `npm run bench:llm`: products, articles, docs, listings.
// Each page has a json schema with the expected values, a question with its expected answer and
// a highlights query with the sentence that must be among the highlights.

const page = (title, body) =>
  `<!doctype html><html><head><title>${title}</title></head><body>
<header><nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/blog">Blog</a></nav></header>
<div class="cookie-banner">We use cookies to improve your experience. <button>Accept</button></div>
<main>${body}</main>
<footer><p>© 2026 Example Ltd. All rights reserved.</p><a href="/privacy">Privacy</a></footer></body></html>`;

/** A JSON schema of an object whose every property is required. */
const object = (properties) => ({ type: 'object', properties, required: Object.keys(properties) });

/** A fixture page at `path`: its HTML is `body` inside the site's template under `title`. */
const fixture = (path, kind, title, body, checks) => ({ path, kind, html: page(title, body), ...checks });

const PRODUCT = object({
  name: { type: 'string' },
  price: { type: 'number' },
  brand: { type: 'string' },
  inStock: { type: 'boolean' },
});

module.exports = [
  fixture(
    '/products/kettle',
    'product',
    'Aurora Electric Kettle',
    `<h1>Aurora Electric Kettle</h1>
<p class="price">Price: $49.99</p><p>Brand: Lumen Home</p><p>Availability: In stock</p>
<p>The Aurora boils 1.7 litres of water in under four minutes and switches off automatically.</p>
<h2>Specifications</h2><ul><li>Capacity: 1.7 litres</li><li>Power: 2200 W</li><li>Colour: brushed steel</li></ul>`,
    {
      schema: PRODUCT,
      expected: { name: 'Aurora Electric Kettle', price: 49.99, brand: 'Lumen Home', inStock: true },
      question: 'What is the power of the kettle?',
      answer: '2200 W',
      highlightsQuery: 'How fast does it boil water?',
      mustHighlight: 'under four minutes',
    },
  ),
  fixture(
    '/products/backpack',
    'product',
    'Trailblazer 30L Backpack',
    `<h1>Trailblazer 30L Backpack</h1>
<p>Our best-selling hiking pack, made by Northpeak.</p><p><strong>€89.00</strong></p>
<p>Currently out of stock; new stock expected in March.</p>
<h2>Features</h2><p>The pack weighs 1.1 kg and has a waterproof rain cover stored in the bottom pocket.</p>`,
    {
      schema: PRODUCT,
      expected: { name: 'Trailblazer 30L Backpack', price: 89, brand: 'Northpeak', inStock: false },
      question: 'How much does the backpack weigh?',
      answer: '1.1 kg',
      highlightsQuery: 'Is it waterproof?',
      mustHighlight: 'waterproof rain cover',
    },
  ),
  fixture(
    '/blog/solar-roofs',
    'article',
    'Solar roofs pass a milestone',
    `<article><h1>Solar roofs pass a milestone</h1>
<p class="byline">By Maria Okafor, 12 March 2026</p>
<p>Rooftop solar panels now supply 14 percent of the city's electricity, the energy office said on Tuesday.</p>
<p>The figure doubled in three years, helped by a subsidy that covers a third of installation costs.</p>
<p>Officials expect the share to reach 20 percent by 2028.</p></article>`,
    {
      schema: object({
        title: { type: 'string' },
        author: { type: 'string' },
        sharePercent: { type: 'number' },
      }),
      expected: { title: 'Solar roofs pass a milestone', author: 'Maria Okafor', sharePercent: 14 },
      question: 'What share are officials expecting by 2028?',
      answer: '20 percent',
      highlightsQuery: 'What helped the growth?',
      mustHighlight: 'subsidy',
    },
  ),
  fixture(
    '/blog/river-cleanup',
    'article',
    'Volunteers clear the river',
    `<article><h1>Volunteers clear the river</h1>
<p>Written by Tom Becker on 3 May 2026.</p>
<p>More than 300 volunteers removed 2.4 tonnes of waste from the Elde river on Saturday.</p>
<p>Most of the waste was plastic packaging, according to the organisers.</p></article>`,
    {
      schema: object({
        title: { type: 'string' },
        author: { type: 'string' },
        volunteers: { type: 'integer' },
      }),
      expected: { title: 'Volunteers clear the river', author: 'Tom Becker', volunteers: 300 },
      question: 'How much waste was removed?',
      answer: '2.4 tonnes',
      highlightsQuery: 'What kind of waste was found?',
      mustHighlight: 'plastic packaging',
    },
  ),
  fixture(
    '/docs/install',
    'docs',
    'Installing Quill CLI',
    `<h1>Installing Quill CLI</h1>
<p>Quill CLI requires Node.js 20 or later.</p>
<pre><code>npm install -g quill-cli</code></pre>
<h2>Configuration</h2><p>The default port is 7070; change it with the QUILL_PORT environment variable.</p>`,
    {
      schema: object({
        tool: { type: 'string' },
        installCommand: { type: 'string' },
        defaultPort: { type: 'integer' },
      }),
      expected: { tool: 'Quill CLI', installCommand: 'npm install -g quill-cli', defaultPort: 7070 },
      question: 'Which environment variable changes the port?',
      answer: 'QUILL_PORT',
      highlightsQuery: 'What are the requirements?',
      mustHighlight: 'Node.js 20',
    },
  ),
  fixture(
    '/docs/limits',
    'docs',
    'API limits',
    `<h1>API limits</h1>
<p>Each API key may send 600 requests per minute.</p>
<p>Responses larger than 10 MB are split into pages.</p>
<h2>Errors</h2><p>Exceeding the rate limit returns HTTP status 429 with a Retry-After header.</p>`,
    {
      schema: object({
        requestsPerMinute: { type: 'integer' },
        maxResponseMb: { type: 'number' },
        rateLimitStatus: { type: 'integer' },
      }),
      expected: { requestsPerMinute: 600, maxResponseMb: 10, rateLimitStatus: 429 },
      question: 'Which HTTP status does the rate limit return?',
      answer: '429',
      highlightsQuery: 'What happens with large responses?',
      mustHighlight: 'split into pages',
    },
  ),
  fixture(
    '/listings/apartments',
    'listing',
    'Apartments for rent',
    `<h1>Apartments for rent</h1>
<table><thead><tr><th>Address</th><th>Rooms</th><th>Rent</th></tr></thead><tbody>
<tr><td>12 Linden Street</td><td>2</td><td>950</td></tr>
<tr><td>4 Harbour Road</td><td>3</td><td>1200</td></tr>
<tr><td>88 Mill Lane</td><td>1</td><td>700</td></tr></tbody></table>
<p>All rents are monthly, in euros, without utilities.</p>`,
    {
      schema: object({
        listings: {
          type: 'array',
          items: object({
            address: { type: 'string' },
            rooms: { type: 'integer' },
            rent: { type: 'number' },
          }),
        },
      }),
      expected: {
        listings: [
          { address: '12 Linden Street', rooms: 2, rent: 950 },
          { address: '4 Harbour Road', rooms: 3, rent: 1200 },
          { address: '88 Mill Lane', rooms: 1, rent: 700 },
        ],
      },
      question: 'What is the rent at 4 Harbour Road?',
      answer: '1200',
      highlightsQuery: 'Are utilities included?',
      mustHighlight: 'without utilities',
    },
  ),
  fixture(
    '/listings/jobs',
    'listing',
    'Open positions',
    `<h1>Open positions</h1>
<ul><li><strong>Backend Engineer</strong> – Berlin – full time</li>
<li><strong>Data Analyst</strong> – Lisbon – part time</li></ul>
<p>Applications close on 30 June 2026.</p>`,
    {
      schema: object({
        jobs: {
          type: 'array',
          items: object({ title: { type: 'string' }, city: { type: 'string' } }),
        },
      }),
      expected: {
        jobs: [
          { title: 'Backend Engineer', city: 'Berlin' },
          { title: 'Data Analyst', city: 'Lisbon' },
        ],
      },
      question: 'When do applications close?',
      answer: '30 June 2026',
      highlightsQuery: 'What is the deadline?',
      mustHighlight: 'Applications close',
    },
  ),
];

/** Crawl prompts with a site sample and what the generated options must do. */
module.exports.crawlPrompts = [
  {
    url: 'https://example.com',
    prompt: 'Crawl only the blog posts, at most 20 pages.',
    sample: [
      '/',
      '/blog',
      '/blog/solar-roofs',
      '/blog/river-cleanup',
      '/products/kettle',
      '/products/backpack',
      '/docs/install',
      '/docs/limits',
    ],
    mustInclude: ['/blog/solar-roofs', '/blog/river-cleanup'],
    mustExclude: ['/products/kettle', '/docs/install'],
    limit: 20,
  },
  {
    url: 'https://example.com',
    prompt: 'Get the documentation pages but skip anything under /products.',
    sample: [
      '/',
      '/docs/install',
      '/docs/limits',
      '/products/kettle',
      '/products/backpack',
      '/blog/solar-roofs',
    ],
    mustInclude: ['/docs/install', '/docs/limits'],
    mustExclude: ['/products/kettle', '/products/backpack'],
  },
];
