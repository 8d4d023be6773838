import Link from "next/link";

/** Unknown console URL. */
export default function NotFound() {
  return (
    <div className="card">
      <h1>Page not found</h1>
      <p>
        This console page does not exist. <Link href="/">Go to the console</Link>.
      </p>
    </div>
  );
}
