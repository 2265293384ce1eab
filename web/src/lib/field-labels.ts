import { capitalise } from './capitalise';

/** How a record field is named on screen (search results, data-well chips, exports): never the raw key. */
const LABELS: Record<string, string> = {
  email: 'Email',
  username: 'Username',
  password: 'Password',
  hashed_password: 'Hashed Password',
  ip_address: 'IP Address',
  name: 'Name',
  dob: 'Date of Birth',
  license_plate: 'License Plate',
  vin: 'VIN',
  address: 'Address',
  phone: 'Phone',
  company: 'Company',
  url: 'URL',
  social: 'Social',
  cryptocurrency_address: 'Crypto Address',
  domain: 'Domain',
  database_name: 'Database',
};

/** A record field's screen name; an unknown field is its key in words ("credit_card" → "Credit Card"). */
export function fieldLabel(field: string): string {
  return LABELS[field] ?? capitalise(field.replace(/_/g, ' '));
}
