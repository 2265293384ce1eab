import { PasswordInput } from './password-input';

interface FieldProps {
  value: string;
  onChange: (value: string) => void;
}

export function EmailField({ value, onChange }: FieldProps) {
  return (
    <label className="field">
      <span className="field-label">Email</span>
      <input
        className="input"
        type="email"
        name="email"
        autoComplete="email"
        placeholder="you@example.com"
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
    </label>
  );
}

export function PasswordField({
  label,
  name,
  autoComplete,
  placeholder,
  value,
  onChange,
}: FieldProps & { label: string; name: string; autoComplete: 'current-password' | 'new-password'; placeholder?: string }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <PasswordInput
        name={name}
        autoComplete={autoComplete}
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
    </label>
  );
}
