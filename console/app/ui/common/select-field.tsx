import { FieldError } from "./states";

/**
 * A labelled `<select>` of `options` (a filter, a plan), each shown as its own value; with `any`
 * it starts with an empty option, "All". Its field error, if any, goes underneath.
 */
export function SelectField({
  id,
  label,
  name,
  value,
  options,
  onChange,
  error,
  any = false,
}: {
  id: string;
  label: string;
  name?: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
  error?: string | undefined;
  any?: boolean;
}) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={error === undefined ? undefined : `${id}-error`}
      >
        {any && <option value="">All</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-error`} message={error} />
    </>
  );
}
