import { FieldError } from "./states";

/**
 * A labelled text input with its field error underneath, wired for screen readers
 * (`aria-invalid`, `aria-describedby` naming `<id>-error`). Other input attributes pass through.
 */
export function TextField({
  id,
  label,
  value,
  onChange,
  error,
  ...input
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
} & Omit<React.InputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onChange">) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        {...input}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error !== undefined}
        aria-describedby={`${id}-error`}
      />
      <FieldError id={`${id}-error`} message={error} />
    </>
  );
}
