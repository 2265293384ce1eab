/**
 * Records that every search guide example finds: the server test and the browser test
 * ingest them into their test servers (test data only; the page never imports this).
 */
export const GUIDE_EXAMPLE_WELL = 'Guide Example Well';

export const GUIDE_EXAMPLE_RECORDS: object[] = [
  {
    email: 'john.smith@example.com',
    username: 'john_smith',
    password: 'hunter2',
    hashed_password: '5f4dcc3b5aa765d61d8327deb882cf99',
    name: 'John Smith',
    ip_address: '10.1.2.3',
  },
  { email: 'jane.doe@example.com', username: 'jane_doe', ip_address: '2001:0db8::0001' },
  { email: 'wildcat1@example.org', username: 'wildcat1' },
  { email: 'wildcat2@example.org', username: 'wildcat2' },
  { email: 'wildcat99@example.org', username: 'wildcat99' },
  { email: 'joan@example.com', username: 'joan_b', domain: 'example.com' },
];
