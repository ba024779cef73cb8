declare global {
  namespace Express {
    interface Request {
      /** Request id: the client's X-Request-Id when well-formed, else generated. */
      id: string;
    }
  }
}

export {};
